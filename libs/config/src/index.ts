export * from './field';
export * from './types';
