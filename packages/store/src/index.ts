export * from './mongo';
export * from './collections';
export * from './callback-deliveries';
