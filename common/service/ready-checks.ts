import { Pool } from 'pg'
import { withTimeout } from '../with-timeout'

/** What `GET /ready` asks of a process: named checks, each bounded in time: docs/operations.md#health-and-readiness */

/**
 * Resolves when its part of the process can serve; rejects with the reason when not. What it
 * resolves with (or a NotReady's details) is reported under `details`: figures an operator
 * watches whether or not the check passes (a replica's lag).
 */
export type ReadyCheck = () => Promise<unknown>

/** A failed check that reports its figures too. */
export class NotReady extends Error {
    constructor(message: string, readonly details: unknown) {
        super(message)
    }
}

export interface ReadyReport {
    ready: boolean
    /** Per check: `ok`, or why it failed. */
    checks: Record<string, string>
    /** Per check that reported figures: those figures. Absent when none did. */
    details?: Record<string, unknown>
}

/** A check that has not answered by then counts as failed: a load balancer's probe must not hang. */
export const CHECK_TIMEOUT_MS = 2000

export class ReadyChecks {
    private readonly checks = new Map<string, ReadyCheck>()

    add(name: string, check: ReadyCheck): this {
        this.checks.set(name, check)
        return this
    }

    /** Runs every check at once; ready when all pass. */
    async report(): Promise<ReadyReport> {
        const results = await Promise.all([...this.checks].map(async ([name, check]) => {
            const [outcome, details] = await withTimeout(check(), CHECK_TIMEOUT_MS).then(
                (figures): [string, unknown] => ['ok', figures],
                (err): [string, unknown] => [String(err?.message ?? err), err instanceof NotReady ? err.details : undefined],
            )
            return { name, outcome, details }
        }))
        const details = results.filter((r) => r.details !== undefined).map((r) => [r.name, r.details])
        return {
            ready: results.every((r) => r.outcome === 'ok'),
            checks: Object.fromEntries(results.map((r) => [r.name, r.outcome])),
            ...(details.length > 0 ? { details: Object.fromEntries(details) } : {}),
        }
    }
}

/** The database answers a query. */
export function databaseCheck(pool: Pool): ReadyCheck {
    return async () => {
        // The driver's message names the host and port: not for an anonymous caller.
        await pool.query('SELECT 1').catch(() => {
            throw new Error('database unreachable')
        })
    }
}
