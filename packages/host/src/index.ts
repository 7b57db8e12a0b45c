export * from './stop-stack';
export * from './service-host';
