import { Db } from '../db'

/** An instance's row of the NFT metadata cache (docs/nft-metadata.md), as renderInstanceMetadata takes it. */
export interface NftMetadataRow {
    token: string
    /** decimal */
    token_id: string
    /** 'pending', 'fetched' or 'failed'; a failed refresh keeps the document fetched before */
    status: string
    metadata: Record<string, unknown> | null
    image_url: string | null
    animation_url: string | null
    external_app_url: string | null
}

/** Key of an instance in the map nftMetadataOf answers: the token address (lowercase) and the decimal id. */
export const nftMetadataKey = (token: string, tokenId: string) => `${token.toLowerCase()}/${tokenId}`

/**
 * The cache rows of the given instances, in one statement, by nftMetadataKey; an instance the
 * fetcher has not seen is absent. Ids are decimal strings (an invalid one is the caller's 400, not a
 * database error: they are checked here too).
 */
export async function nftMetadataOf(db: Db, instances: readonly { token: string; tokenId: string }[]): Promise<Map<string, NftMetadataRow>> {
    const wanted = instances.filter((i) => /^\d{1,78}$/.test(i.tokenId))
    const result = new Map<string, NftMetadataRow>()
    if (wanted.length === 0) return result
    const { rows } = await db.query<NftMetadataRow>(
        `SELECT m.token, m.token_id::text AS token_id, m.status, m.metadata, m.image_url, m.animation_url, m.external_app_url
           FROM nft_metadata m JOIN unnest($1::text[], $2::numeric[]) AS w(token, token_id) ON m.token = w.token AND m.token_id = w.token_id`,
        [wanted.map((i) => i.token.toLowerCase()), wanted.map((i) => i.tokenId)]
    )
    for (const row of rows) result.set(nftMetadataKey(row.token, row.token_id), row)
    return result
}
