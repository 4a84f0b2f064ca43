export type { CletConfiguration, CletFlags, Taint, GoDuration } from './config/types';
