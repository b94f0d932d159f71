import { Db } from '../db'
import { Call, CalledMethods, calledMethods } from './called-methods'
import { TOKEN_COLUMNS, TokenRow } from './tokens'

/**
 * What a page's items refer to beyond their own rows, as the route declares it before rendering
 * (Blockscout's controllers declare the same with necessity_by_association): the addresses its
 * AddressParams show and the tokens its TokenInfos show. Nulls (no `to`, no created contract) are
 * skipped.
 */
export interface RelatedRefs {
    addresses?: Iterable<string | null | undefined>
    tokens?: Iterable<string>
    /** the calls whose method names the page shows (queries/called-methods.ts) */
    calls?: Iterable<Call>
}

export interface KnownAddressRow {
    id: string
    is_contract: boolean
    /** the verified contract's name */
    name: string | null
}

/** The rows of what a page refers to, by id: an id the indexer does not know is absent. */
export interface Related {
    addresses: ReadonlyMap<string, KnownAddressRow>
    tokens: ReadonlyMap<string, TokenRow>
    /** the verified names of the calls, by callKey */
    methods: CalledMethods
}

/** Loads what `refs` names, one query per kind (none for an empty list), all at once, so renderers only render. */
export async function related(db: Db, refs: RelatedRefs): Promise<Related> {
    const [addresses, tokens, methods] = await Promise.all([
        addressRows(db, refs.addresses ?? []), tokenRows(db, refs.tokens ?? []), calledMethods(db, refs.calls ?? []),
    ])
    return { addresses, tokens, methods }
}

/** What the AddressParams of a page need (contract flag, verified name), in one query. */
async function addressRows(db: Db, addresses: Iterable<string | null | undefined>): Promise<Map<string, KnownAddressRow>> {
    const ids = [...new Set([...addresses].filter((a): a is string => !!a))]
    if (ids.length === 0) return new Map()
    const { rows } = await db.query<KnownAddressRow>(
        `SELECT a.id, a.is_contract, v.name
           FROM address a LEFT JOIN verified_contract v ON v.id = a.id
          WHERE a.id = ANY($1::text[])`,
        [ids]
    )
    return new Map(rows.map((r) => [r.id, r]))
}

/** The TokenInfos of a page, in one query. */
async function tokenRows(db: Db, tokens: Iterable<string>): Promise<Map<string, TokenRow>> {
    const ids = [...new Set(tokens)]
    if (ids.length === 0) return new Map()
    const { rows } = await db.query<TokenRow>(`SELECT ${TOKEN_COLUMNS} FROM token k WHERE k.id = ANY($1::text[])`, [ids])
    return new Map(rows.map((r) => [r.id, r]))
}
