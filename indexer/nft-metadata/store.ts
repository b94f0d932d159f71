import { Pool } from 'pg'
import { MediaFields } from './media-fields'

/** The fetcher's reads and writes of `nft_metadata`: which instances are due, and each attempt's outcome with its retry. */

export interface DueInstance {
    token: string
    /** decimal */
    token_id: string
    /** the token's type now, else the one recorded at discovery */
    type: string
    attempts: number
}

export interface RetryPolicy {
    firstDelaySeconds: number
    maxDelaySeconds: number
    maxAttempts: number
}

/** Seconds until the next attempt after the `attempts`-th failure in a row; null once the attempts are used up. */
export function retryDelaySeconds(attempts: number, policy: RetryPolicy): number | null {
    if (attempts >= policy.maxAttempts) return null
    return Math.min(policy.maxDelaySeconds, policy.firstDelaySeconds * 2 ** Math.min(attempts - 1, 40))
}

const MAX_ERROR_CHARS = 500
/** A token URI is kept for diagnosis only, so a long `data:` URI is kept as its beginning. */
const MAX_URI_CHARS = 2048

export class MetadataStore {
    constructor(private readonly pool: Pool, private readonly retry: RetryPolicy) {}

    /** Up to `limit` instances due now, the longest waiting first, leaving out those already in hand. */
    async due(limit: number, inHand: readonly { token: string; token_id: string }[]): Promise<DueInstance[]> {
        const { rows } = await this.pool.query<DueInstance>(
            `SELECT m.token, m.token_id::text AS token_id, COALESCE(t.type, m.token_type) AS type, m.attempts
               FROM nft_metadata m LEFT JOIN token t ON t.id = m.token
              WHERE m.next_attempt_at <= now()
                AND (m.token, m.token_id) NOT IN (SELECT * FROM unnest($2::text[], $3::numeric[]))
              ORDER BY m.next_attempt_at LIMIT $1`,
            [limit, inHand.map((i) => i.token), inHand.map((i) => i.token_id)]
        )
        return rows
    }

    /** A document fetched: stored with its media fields, and not fetched again. */
    async fetched(instance: DueInstance, tokenUri: string, metadata: Record<string, unknown>, fields: MediaFields): Promise<void> {
        await this.pool.query(
            `UPDATE nft_metadata SET status = 'fetched', token_uri = $3, metadata = $4, image_url = $5, animation_url = $6, external_app_url = $7,
                    error = NULL, attempts = attempts + 1, attempted_at = now(), fetched_at = now(), next_attempt_at = NULL
              WHERE token = $1 AND token_id = $2`,
            [instance.token, instance.token_id, tokenUri.slice(0, MAX_URI_CHARS), JSON.stringify(metadata), fields.image_url, fields.animation_url, fields.external_app_url]
        )
    }

    /**
     * An attempt failed: the reason recorded and the next attempt set by the backoff. A document
     * fetched before stays (a later failure to refresh does not erase what was shown).
     */
    async failed(instance: DueInstance, tokenUri: string | null, error: string): Promise<void> {
        const attempts = instance.attempts + 1
        const delay = retryDelaySeconds(attempts, this.retry)
        await this.pool.query(
            `UPDATE nft_metadata SET status = CASE WHEN metadata IS NULL THEN 'failed' ELSE status END, token_uri = COALESCE($3, token_uri), error = $4,
                    attempts = $5, attempted_at = now(), next_attempt_at = CASE WHEN $6::float8 IS NULL THEN NULL ELSE now() + make_interval(secs => $6::float8) END
              WHERE token = $1 AND token_id = $2`,
            [instance.token, instance.token_id, tokenUri?.slice(0, MAX_URI_CHARS) ?? null, error.slice(0, MAX_ERROR_CHARS), attempts, delay]
        )
    }

    /** Instances due now, counted up to `cap` (a gauge read on scrape must not count a million rows). */
    async dueCount(cap: number): Promise<number> {
        const { rows } = await this.pool.query<{ n: number }>(
            'SELECT count(*)::int AS n FROM (SELECT 1 FROM nft_metadata WHERE next_attempt_at <= now() LIMIT $1) due', [cap])
        return rows[0].n
    }
}
