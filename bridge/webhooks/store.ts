import { Pool, PoolClient } from 'pg'
import { inTransaction } from '../../db/transaction'
import { Sealer } from '../../common/sealing'
import { MAX_OLD_SECRETS } from './policy'
import { generateSecret } from './signing'

/**
 * Subscriptions and their signing secrets. A secret is generated here, handed back
 * once (creation, rotation) and otherwise exists only sealed in bridge_webhook_secret, opened for
 * the moment of signing.
 */

export interface Subscription {
    id: string
    url: string
    /** null: every event. */
    eventTypes: string[] | null
    description: string
    method: string
    active: boolean
    /** Failed attempts in a row since the last success. */
    failureCount: number
    /** Events given up (undelivered) in a row since the last success. */
    failedEvents: number
    failingSince: Date | null
    lastSuccessAt: Date | null
    lastFailureAt: Date | null
    disabledAt: Date | null
    disabledReason: string | null
    createdAt: Date
    updatedAt: Date
    /** When the last rotated-out secret stops signing (null: only one secret signs). */
    previousSecretExpiresAt: Date | null
}

export interface SubscriptionInput {
    url: string
    eventTypes: string[] | null
    description: string
    method: string
    active: boolean
}

export type SubscriptionChanges = Partial<SubscriptionInput>

/** HKDF purpose of the key that seals webhook secrets (the seeds use another). */
const SEAL_INFO = 'bridge-webhook-secret-v1'
const aad = (subscriptionId: string) => `bridge_webhook_secret:${subscriptionId}`

const COLUMNS = `s.*, (SELECT max(k.expires_at) FROM bridge_webhook_secret k WHERE k.subscription_id = s.id AND k.expires_at > now()) AS previous_secret_expires_at`

function map(row: any): Subscription {
    return {
        id: row.id,
        url: row.url,
        eventTypes: row.event_types,
        description: row.description,
        method: row.method,
        active: row.active,
        failureCount: row.failure_count,
        failedEvents: row.failed_events,
        failingSince: row.failing_since,
        lastSuccessAt: row.last_success_at,
        lastFailureAt: row.last_failure_at,
        disabledAt: row.disabled_at,
        disabledReason: row.disabled_reason,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
        previousSecretExpiresAt: row.previous_secret_expires_at ?? null,
    }
}

export class SubscriptionStore {
    private readonly sealer: Sealer

    constructor(private readonly pool: Pool, masterKeyHex: string) {
        this.sealer = new Sealer(masterKeyHex, SEAL_INFO)
    }

    async create(input: SubscriptionInput): Promise<{ subscription: Subscription; secret: string }> {
        const secret = generateSecret()
        const subscription = await inTransaction(this.pool, async (client) => {
            const { rows } = await client.query(
                `INSERT INTO bridge_webhook_subscription (url, event_types, description, method, active, disabled_at, disabled_reason)
                 VALUES ($1, $2, $3, $4, $5, CASE WHEN $5 THEN NULL ELSE now() END, CASE WHEN $5 THEN NULL ELSE 'created disabled' END) RETURNING id`,
                [input.url, input.eventTypes, input.description, input.method, input.active]
            )
            await this.storeSecret(client, rows[0].id, secret)
            return this.load(client, rows[0].id)
        })
        return { subscription: subscription!, secret }
    }

    async list(): Promise<Subscription[]> {
        const { rows } = await this.pool.query(`SELECT ${COLUMNS} FROM bridge_webhook_subscription s ORDER BY s.created_at, s.id`)
        return rows.map(map)
    }

    async get(id: string): Promise<Subscription | undefined> {
        return this.load(this.pool, id)
    }

    /** Changes only the fields given. active: true also clears the failure counters and the disable reason. */
    async update(id: string, changes: SubscriptionChanges): Promise<Subscription | undefined> {
        const sets: string[] = []
        const values: unknown[] = [id]
        const set = (sql: string, value: unknown) => {
            values.push(value)
            sets.push(sql.replace('?', `$${values.length}`))
        }
        if (changes.url !== undefined) set('"url" = ?', changes.url)
        if (changes.eventTypes !== undefined) set('"event_types" = ?', changes.eventTypes)
        if (changes.description !== undefined) set('"description" = ?', changes.description)
        if (changes.method !== undefined) set('"method" = ?', changes.method)
        if (changes.active === true) {
            sets.push(`"active" = true`, `"failure_count" = 0`, `"failed_events" = 0`, `"failing_since" = NULL`, `"disabled_at" = NULL`, `"disabled_reason" = NULL`)
        } else if (changes.active === false) {
            sets.push(`"active" = false`, `"disabled_at" = CASE WHEN "active" THEN now() ELSE "disabled_at" END`,
                `"disabled_reason" = CASE WHEN "active" THEN 'disabled by an operator (PATCH active: false)' ELSE "disabled_reason" END`)
        }
        if (sets.length === 0) return this.get(id)
        const { rowCount } = await this.pool.query(`UPDATE bridge_webhook_subscription SET "updated_at" = now(), ${sets.join(', ')} WHERE "id" = $1`, values)
        return rowCount ? this.get(id) : undefined
    }

    /** Removes the subscription with its secrets and every delivery of it; returns how many were still queued. */
    async remove(id: string): Promise<{ queued: number } | undefined> {
        return inTransaction(this.pool, async (client) => {
            const { rows } = await client.query(`SELECT id FROM bridge_webhook_subscription WHERE id = $1 FOR UPDATE`, [id])
            if (rows.length === 0) return undefined
            const queued = await client.query(`DELETE FROM bridge_webhook_delivery WHERE subscription_id = $1 AND state = 'pending'`, [id])
            await client.query(`DELETE FROM bridge_webhook_subscription WHERE id = $1`, [id])
            return { queued: queued.rowCount ?? 0 }
        })
    }

    /**
     * A new current secret. The ones still signing keep signing until graceMs from now (or their own
     * earlier end); 0 ends them at once (a leaked secret). At most MAX_OLD_SECRETS old ones are kept.
     */
    async rotate(id: string, graceMs: number): Promise<{ secret: string; subscription: Subscription } | undefined> {
        const secret = generateSecret()
        return inTransaction(this.pool, async (client) => {
            const { rows } = await client.query(`SELECT id FROM bridge_webhook_subscription WHERE id = $1 FOR UPDATE`, [id])
            if (rows.length === 0) return undefined
            await client.query(
                `UPDATE bridge_webhook_secret SET expires_at = LEAST(COALESCE(expires_at, 'infinity'), now() + $2 * interval '1 millisecond')
                 WHERE subscription_id = $1 AND (expires_at IS NULL OR expires_at > now())`,
                [id, Math.round(graceMs)]
            )
            await client.query(`DELETE FROM bridge_webhook_secret WHERE subscription_id = $1 AND expires_at <= now()`, [id])
            await client.query(
                `DELETE FROM bridge_webhook_secret WHERE subscription_id = $1 AND expires_at IS NOT NULL
                 AND id NOT IN (SELECT id FROM bridge_webhook_secret WHERE subscription_id = $1 AND expires_at IS NOT NULL ORDER BY id DESC LIMIT $2)`,
                [id, MAX_OLD_SECRETS]
            )
            await this.storeSecret(client, id, secret)
            await client.query(`UPDATE bridge_webhook_subscription SET updated_at = now() WHERE id = $1`, [id])
            return { secret, subscription: (await this.load(client, id))! }
        })
    }

    /** Secrets that sign now, newest first, per subscription. */
    async signingSecrets(ids: string[]): Promise<Map<string, string[]>> {
        const { rows } = await this.pool.query(
            `SELECT subscription_id, iv, ciphertext FROM bridge_webhook_secret
             WHERE subscription_id = ANY($1) AND (expires_at IS NULL OR expires_at > now()) ORDER BY id DESC`,
            [ids]
        )
        const out = new Map<string, string[]>()
        for (const row of rows) {
            const plain = this.sealer.open(row.iv, row.ciphertext, aad(row.subscription_id))
            const list = out.get(row.subscription_id) ?? []
            list.push(plain.toString('utf8'))
            plain.fill(0)
            out.set(row.subscription_id, list)
        }
        return out
    }

    async deliveryCounts(id: string): Promise<{ pending: number; delivered: number; undelivered: number }> {
        const { rows } = await this.pool.query(
            `SELECT count(*) FILTER (WHERE state = 'pending')::int AS pending, count(*) FILTER (WHERE state = 'delivered')::int AS delivered,
                    count(*) FILTER (WHERE state = 'undelivered')::int AS undelivered
             FROM bridge_webhook_delivery WHERE subscription_id = $1`,
            [id]
        )
        return rows[0]
    }

    private async storeSecret(client: PoolClient, subscriptionId: string, secret: string): Promise<void> {
        const { iv, ciphertext } = this.sealer.seal(Buffer.from(secret, 'utf8'), aad(subscriptionId))
        await client.query(`INSERT INTO bridge_webhook_secret (subscription_id, iv, ciphertext) VALUES ($1, $2, $3)`, [subscriptionId, iv, ciphertext])
    }

    private async load(db: Pool | PoolClient, id: string): Promise<Subscription | undefined> {
        const { rows } = await db.query(`SELECT ${COLUMNS} FROM bridge_webhook_subscription s WHERE s.id = $1`, [id])
        return rows[0] ? map(rows[0]) : undefined
    }
}
