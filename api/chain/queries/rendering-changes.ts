import { Db } from '../db'

/** What the commits since a head changed of what list items show of other rows: docs/chain-api.md#rendered-list-items */

/** The head a check started from: its number and hash, and when verifications were last looked at (the server's clock). */
export interface CheckedHead {
    number: number
    hash: string | null
    checkedAt: Date
}

export interface RenderingChanges {
    head: CheckedHead
    /** The block at the previous head's height is not the one seen then (a reorganisation): nothing kept is to be trusted. */
    replaced: boolean
    /** Every address that may have changed, by shownAddressKey / shownTokenKey, with its state now (shownAddressState / shownTokenState). */
    states: Map<string, string>
}

/** What an item records of an address it shows (render/address.ts's AddressParam: is_contract, name, is_verified). */
export const shownAddressState = (isContract: boolean | null, name: string | null) => JSON.stringify([isContract, name])
/** What a transaction item records of whether its created contract is a token (transaction_types' token_creation). */
export const shownTokenState = (isToken: boolean) => (isToken ? 'token' : 'none')
/** What a transaction item records of the contract it calls: its implementation when it is a proxy, and that implementation's verified name (whose ABI may name the method). */
export const shownCallsState = (implementation: string | null, name: string | null) => JSON.stringify([implementation, name])
export const shownAddressKey = (address: string) => address
export const shownTokenKey = (address: string) => `token:${address}`
export const shownCallsKey = (address: string) => `calls:${address}`

/**
 * A verification committed this long after the moment it was stamped with (its transaction's
 * now()) is still found: the window overlaps the previous check's, so a verification whose
 * transaction was open during that check is not missed.
 */
const VERIFICATION_OVERLAP = '1 minute'

/**
 * The addresses the blocks after `since` (up to `head`) may have changed the rendering of, with
 * their state now. An address becomes a contract, a token or a named (verified) contract only by
 * what the indexer writes of the block that creates it or of the logs it emits, so the candidates
 * are: contracts created by those blocks' transactions and call frames, the emitters of their logs,
 * the pairs they created, and the contracts verified since the last check (through the API, at any
 * time). A transaction's method may also be named by the verified ABI of the implementation behind
 * the proxy it calls, which changes without any of those: the proxies the blocks wrote (detected or
 * upgraded, a beacon's upgrade included: `proxy_contract.block`) and the proxies of the
 * implementations verified since the last check are candidates too. Each is a range of a primary
 * key or an index, or a small table; the states are then compared with what the items kept
 * recorded, so an address that did not change drops nothing.
 */
export async function renderingChanges(db: Db, since: CheckedHead | undefined, head: number): Promise<RenderingChanges> {
    const from = since?.number ?? head
    const pad = (n: number) => String(n).padStart(10, '0')
    const { rows: [row] } = await db.query<{ hash: string | null; previous: string | null; checked_at: Date; states: [string, boolean, string | null, boolean, string | null, string | null][] | null }>(
        `WITH candidates AS (
            SELECT created_contract AS id FROM transaction WHERE block_number > $1 AND block_number <= $2 AND created_contract IS NOT NULL
            UNION SELECT address FROM log WHERE id > $3 AND id < $4
            UNION SELECT created_contract FROM internal_transaction WHERE id > $3 AND id < $4 AND created_contract IS NOT NULL
            UNION SELECT id FROM pair WHERE created_block > $1
            UNION SELECT id FROM verified_contract WHERE verified_at > $5::timestamptz - interval '${VERIFICATION_OVERLAP}'
            UNION SELECT id FROM proxy_contract WHERE block > $1 AND block <= $2
            UNION SELECT p.id FROM verified_contract v JOIN proxy_contract p ON p.implementation = v.id
                   WHERE v.verified_at > $5::timestamptz - interval '${VERIFICATION_OVERLAP}'
         )
         SELECT (SELECT id FROM block WHERE number = $2) AS hash,
                (SELECT id FROM block WHERE number = $1) AS previous,
                now() AS checked_at,
                (SELECT json_agg(json_build_array(a.id, a.is_contract, v.name, k.id IS NOT NULL, p.implementation, i.name))
                   FROM candidates c JOIN address a ON a.id = c.id
                   LEFT JOIN verified_contract v ON v.id = a.id
                   LEFT JOIN token k ON k.id = a.id
                   LEFT JOIN proxy_contract p ON p.id = a.id
                   LEFT JOIN verified_contract i ON i.id = p.implementation) AS states`,
        [from, head, pad(from + 1), pad(head + 1), since?.checkedAt ?? new Date()]
    )
    const states = new Map<string, string>()
    for (const [id, isContract, name, isToken, implementation, implementationName] of row.states ?? []) {
        states.set(shownAddressKey(id), shownAddressState(isContract, name))
        states.set(shownTokenKey(id), shownTokenState(isToken))
        states.set(shownCallsKey(id), shownCallsState(implementation, implementationName))
    }
    const replaced = since !== undefined && (head < since.number || row.previous !== since.hash)
    return { head: { number: head, hash: row.hash, checkedAt: row.checked_at }, replaced, states }
}
