import type { z } from 'zod'
import { InstanceRow } from '../queries/token-instances'
import { Related, RelatedRefs } from '../queries/related'
import type { TokenInstance } from '../schemas'
import { relatedAddresses } from './address'
import { renderToken } from './token'

/**
 * What an NFT's metadata gives its instance (docs/chain-api.md#nfts). The indexer does not fetch
 * metadata yet, so every route passes none and these fields render null; a metadata reader hands
 * its row here and every instance the API shows carries it.
 */
export interface InstanceMetadata {
    metadata: Record<string, unknown> | null
    image_url: string | null
    animation_url: string | null
    external_app_url: string | null
}

/** What renderInstance shows of other rows: the owner and the token. */
export function instanceRefs(rows: readonly InstanceRow[]): RelatedRefs {
    return { addresses: rows.map((r) => r.owner), tokens: rows.map((r) => r.token) }
}

/**
 * Blockscout's TokenInstance, with the owner and token loaded by instanceRefs. `owner` is the
 * ERC-721 owner (the zero address once burnt) and null for ERC-1155, whose ids have holders
 * instead, as Blockscout shows them.
 */
export function renderInstance(row: InstanceRow, loaded: Related, metadata?: InstanceMetadata): z.input<typeof TokenInstance> {
    const token = loaded.tokens.get(row.token)
    const media = metadata?.animation_url ?? metadata?.image_url ?? null
    return {
        id: row.token_id,
        metadata: metadata?.metadata ?? null,
        owner: relatedAddresses(loaded)(row.owner),
        token: token ? renderToken(token) : null,
        external_app_url: metadata?.external_app_url ?? null,
        animation_url: metadata?.animation_url ?? null,
        image_url: metadata?.image_url ?? null,
        is_unique: token ? token.type === 'ERC-721' : null,
        thumbnails: null,
        media_type: null,
        media_url: media,
    }
}
