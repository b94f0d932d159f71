import { z } from 'zod'

/** The request fields POST /api/swap and GET /api/swap/quote share, so both refuse a pair for the same reasons. */

/** A required trimmed string of at most max characters. */
export const text = (max: number) => z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`)

/** The pair a swap or a quote is for, as names the configuration knows (engine/terms.ts routeFor). */
export const pairFields = {
    source_chain: text(32),
    source_token: text(32),
    target_chain: text(32),
    target_token: text(32),
}
