import type { z } from 'zod'
import { nftMetadataKey } from '../queries/nft-metadata'
import { InstanceRelations, InstanceRow } from '../queries/token-instances'
import type { TokenInstance } from '../schemas'
import { relatedAddresses } from './address'
import { renderInstanceMetadata } from './nft-metadata'
import { renderToken } from './token'

/**
 * Blockscout's TokenInstance, with what instanceRelations loaded: the owner, the token, and the
 * metadata fields (null until the fetcher has the document: docs/nft-metadata.md). `owner` is the
 * ERC-721 owner (the zero address once burnt) and null for ERC-1155, whose ids have holders
 * instead, as Blockscout shows them.
 */
export function renderInstance(row: InstanceRow, loaded: InstanceRelations): z.input<typeof TokenInstance> {
    const token = loaded.related.tokens.get(row.token)
    const metadata = renderInstanceMetadata(loaded.metadata.get(nftMetadataKey(row.token, row.token_id)))
    const media = metadata.animation_url ?? metadata.image_url ?? null
    return {
        id: row.token_id,
        metadata: metadata.metadata,
        owner: relatedAddresses(loaded.related)(row.owner),
        token: token ? renderToken(token) : null,
        external_app_url: metadata.external_app_url,
        animation_url: metadata.animation_url,
        image_url: metadata.image_url,
        is_unique: token ? token.type === 'ERC-721' : null,
        thumbnails: null,
        media_type: null,
        media_url: media,
    }
}
