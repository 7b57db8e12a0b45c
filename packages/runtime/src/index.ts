export * from './errors';
export * from './config';
export * from './logger';
export * from './metrics';
export * from './health';
export * from './lifecycle';
export * from './group-flusher';
export * from './workers';
