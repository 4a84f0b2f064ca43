// The pod code logs through the agent's structured log entries (message, key-values, level).
export { logLine, type LogEntry, type LogFn } from '../log';
