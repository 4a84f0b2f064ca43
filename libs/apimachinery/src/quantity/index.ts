export { Quantity, parseQuantity } from './quantity';
export { QuantityError } from './errors';
export type { QuantityFormat } from './suffix';
