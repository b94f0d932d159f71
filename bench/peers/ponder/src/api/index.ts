import { Hono } from 'hono'

/** Ponder requires an API; the bench reads Postgres directly, so it serves only Ponder's own /ready and /status. */

export default new Hono()
