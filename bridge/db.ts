import { Pool, PoolClient } from 'pg'

/** One database transaction (shared with the other services). */
export { inTransaction } from '../db/transaction'

/** What a store statement runs on: the pool, or a transaction's client when it is one step of several. */
export type Db = Pool | PoolClient

/** Advisory-lock namespaces (first key of pg_advisory_lock(int, int)). */
export const LOCK_SWAP = 0x62726901
export const LOCK_SENDER = 0x62726902
export const LOCK_VAULT = 0x62726903
/** Swap creation per client IP (the pending-swap limit). */
export const LOCK_PENDING_IP = 0x62726904

/** Advisory locks across replicas (shared with the platform's sender). */
export { LockManager, Release } from '../db/advisory-locks'
