export * from './mongo';
export * from './collections';
export * from './mongo-watchdog';
export * from './owner-databases';
export * from './insert-new';
export * from './find-by-ids';
export * from './lease';
export * from './stored-assessment';
export type * from './read-models';
