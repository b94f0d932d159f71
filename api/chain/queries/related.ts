import { Db } from '../db'
import { knownAddresses, KnownAddressRow } from './addresses'
import { TokenRow, tokensByIds } from './tokens'

/**
 * What a page's items refer to beyond their own rows, as the route declares it before rendering
 * (Blockscout's controllers declare the same with necessity_by_association): the addresses its
 * AddressParams show and the tokens its TokenInfos show. Nulls (no `to`, no created contract) are
 * skipped.
 */
export interface RelatedRefs {
    addresses?: Iterable<string | null | undefined>
    tokens?: Iterable<string>
}

/** The rows of what a page refers to, by id: an id the indexer does not know is absent. */
export interface Related {
    addresses: ReadonlyMap<string, KnownAddressRow>
    tokens: ReadonlyMap<string, TokenRow>
}

/** Loads what `refs` names, one query per kind (none for an empty list), both at once, so renderers only render. */
export async function related(db: Db, refs: RelatedRefs): Promise<Related> {
    const [addresses, tokens] = await Promise.all([addressRows(db, refs.addresses ?? []), tokenRows(db, refs.tokens ?? [])])
    return { addresses, tokens }
}

async function addressRows(db: Db, addresses: Iterable<string | null | undefined>): Promise<Map<string, KnownAddressRow>> {
    const ids = [...new Set([...addresses].filter((a): a is string => !!a))]
    return new Map(ids.length === 0 ? [] : (await knownAddresses(db, ids)).map((r) => [r.id, r]))
}

async function tokenRows(db: Db, tokens: Iterable<string>): Promise<Map<string, TokenRow>> {
    const ids = [...new Set(tokens)]
    return new Map(ids.length === 0 ? [] : (await tokensByIds(db, ids)).map((r) => [r.id, r]))
}
