import { Pool } from 'pg'
import { functionSignatures } from '../../../common/evm/function-signatures'
import { declaredSpdx } from '../../../common/spdx'
import { VERIFICATION_CHANNEL, VerificationNotification } from '../../../db/channels'
import { MatchType } from './bytecode'

/** The verification jobs and verified contracts in Postgres (docs/contract-verification.md). */

export interface Job {
    id: string
    address: string
    status: 'pending' | 'pass' | 'fail'
    reason: string | null
    match_type: MatchType | null
    /** still pending after the longest a job can wait and compile: its process stopped */
    interrupted: boolean
}

/** A contract as it stands before a submission: whether it is one, how it is verified, and its creation input. */
export interface Target {
    is_contract: boolean
    match_type: MatchType | null
    creation_input: Buffer | null
}

export interface Verified {
    address: string
    name: string
    sourceName: string
    compilerVersion: string
    settings: Record<string, unknown>
    sources: Record<string, string>
    abi: unknown[]
    constructorArgs: string | null
    match: MatchType
}

export class VerificationStore {
    constructor(private readonly pool: Pool) {}

    /**
     * The creation input is the creating transaction's input for a deployment, or the internal
     * create's init code for a contract a contract created. A verified row of the indexer's own
     * has no match_type (always full).
     */
    async target(address: string): Promise<Target | undefined> {
        const { rows } = await this.pool.query<Target>(
            `SELECT a.is_contract,
                    CASE WHEN v.id IS NULL THEN NULL ELSE coalesce(v.match_type, 'full') END AS match_type,
                    coalesce(
                        (SELECT t.input FROM transaction t WHERE t.id = a.creation_transaction AND t.created_contract = a.id),
                        (SELECT i.input FROM internal_transaction i
                          WHERE i.transaction_hash = a.creation_transaction AND i.created_contract = a.id LIMIT 1)
                    ) AS creation_input
               FROM address a LEFT JOIN verified_contract v ON v.id = a.id
              WHERE a.id = $1`,
            [address]
        )
        return rows[0]
    }

    /** A new pending job; finished jobs older than a week are dropped on the way. */
    /** Forgets jobs older than 7 days: their guids have long been read, if ever. */
    async sweepJobs(): Promise<void> {
        await this.pool.query(`DELETE FROM contract_verification WHERE created_at < now() - interval '7 days'`)
    }

    async createJob(address: string): Promise<string> {
        const { rows } = await this.pool.query<{ id: string }>(
            `INSERT INTO contract_verification (address) VALUES ($1) RETURNING id`, [address]
        )
        return rows[0].id
    }

    /** Records the outcome and announces it (VERIFICATION_CHANNEL) in the same statement. */
    async finishJob(id: string, address: string, outcome: { status: 'pass'; match: MatchType } | { status: 'fail'; reason: string }): Promise<void> {
        const note: VerificationNotification = outcome.status === 'pass'
            ? { address, status: 'success' }
            : { address, status: 'error', reason: outcome.reason }
        await this.pool.query(
            `WITH done AS (
                UPDATE contract_verification SET status = $2, reason = $3, match_type = $4, finished_at = now() WHERE id = $1 RETURNING id
             )
             SELECT pg_notify($5, $6) FROM done`,
            [id, outcome.status, outcome.status === 'fail' ? outcome.reason : null, outcome.status === 'pass' ? outcome.match : null,
                VERIFICATION_CHANNEL, JSON.stringify(note)]
        )
    }

    async job(id: string, staleAfterMs: number): Promise<Job | undefined> {
        const { rows } = await this.pool.query<Job>(
            `SELECT id, address, status, reason, match_type,
                    status = 'pending' AND created_at < now() - $2 * interval '1 millisecond' AS interrupted
               FROM contract_verification WHERE id = $1`,
            [id, staleAfterMs]
        )
        return rows[0]
    }

    /**
     * Records a verified contract. An existing verification is replaced only by a full match over a
     * partial one; returns whether this one was recorded. A contract verified for the first time is
     * counted in its UTC day's verified_contract_day row by the same statement, so the stats lines
     * (docs/stats-api.md) never count the verifications themselves.
     */
    async save(v: Verified): Promise<boolean> {
        const optimizer = (v.settings.optimizer ?? {}) as { enabled?: boolean; runs?: number }
        const { rows } = await this.pool.query<{ recorded: string }>(
            `WITH saved AS (
             INSERT INTO verified_contract (id, name, source_name, compiler_version, evm_version, optimization_enabled,
                                            optimization_runs, sources, abi, constructor_arguments, verified_at, match_type, compiler_settings, spdx, selectors)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, now(), $11, $12, $13, $14)
             ON CONFLICT (id) DO UPDATE SET
                name = EXCLUDED.name, source_name = EXCLUDED.source_name, compiler_version = EXCLUDED.compiler_version,
                evm_version = EXCLUDED.evm_version, optimization_enabled = EXCLUDED.optimization_enabled,
                optimization_runs = EXCLUDED.optimization_runs, sources = EXCLUDED.sources, abi = EXCLUDED.abi,
                constructor_arguments = EXCLUDED.constructor_arguments, verified_at = EXCLUDED.verified_at,
                match_type = EXCLUDED.match_type, compiler_settings = EXCLUDED.compiler_settings, spdx = EXCLUDED.spdx,
                selectors = EXCLUDED.selectors
              WHERE verified_contract.match_type = 'partial' AND EXCLUDED.match_type = 'full'
             RETURNING (xmax = 0) AS inserted
             ), counted AS (
             INSERT INTO verified_contract_day AS d (id, date, count)
             SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD'), date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', 1
               FROM saved WHERE inserted
             ON CONFLICT (id) DO UPDATE SET count = d.count + 1
             )
             SELECT count(*) AS recorded FROM saved`,
            [
                v.address, v.name, v.sourceName, v.compilerVersion, String(v.settings.evmVersion ?? 'default'),
                optimizer.enabled ?? false, optimizer.enabled ? optimizer.runs ?? 200 : null,
                JSON.stringify(v.sources), JSON.stringify(v.abi), v.constructorArgs ? `0x${v.constructorArgs}` : null,
                v.match, JSON.stringify(v.settings), declaredSpdx(v.sources[v.sourceName]), JSON.stringify(functionSignatures(v.abi)),
            ]
        )
        return Number(rows[0].recorded) > 0
    }
}
