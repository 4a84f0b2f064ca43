export * from './field';
