export * from './decider-spec';
export * from './cluster';
export * from './test-receiver';
export * from './stack-env';
export * from './tcp-proxy';
export * from './scratch-resources';
export * from './memory-logger';
export * from './kafka-answer-proxy';
