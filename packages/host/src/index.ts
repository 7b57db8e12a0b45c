export * from './stop-stack';
export * from './service-host';
export * from './host-messaging';
