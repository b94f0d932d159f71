import type { BigDecimal } from '@subsquid/big-decimal'
import type { HexBytes } from './copy'

/**
 * A field as a row holds it: bytes stay 0x-hex (copy.ts writes them to bytea), a relation is the
 * related row's id, and a BigDecimal the exact decimal string.
 */
type Stored<V> = V extends Uint8Array ? HexBytes : V extends { id: string } ? string : V extends BigDecimal ? string : V

/** A row as written: the entity's fields (not its @derivedFrom lists), without its class. */
export type Row<T> = { [K in keyof T as T[K] extends { id: string }[] ? never : K]: Stored<T[K]> }
