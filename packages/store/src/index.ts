export * from './mongo';
export * from './collections';
