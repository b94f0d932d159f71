import { NftMetadataRow } from '../queries/nft-metadata'

/** Blockscout's metadata fields of a token instance (TokenInstance in schemas.ts). */
export interface InstanceMetadataFields {
    metadata: Record<string, unknown> | null
    image_url: string | null
    animation_url: string | null
    external_app_url: string | null
}

/**
 * An instance's metadata fields from its cache row: all null while nothing was fetched (no row, or
 * a row pending or failed without a document), as Blockscout shows an instance whose metadata it
 * has not fetched. The media fields were taken from the document when it was fetched.
 */
export function renderInstanceMetadata(row: NftMetadataRow | undefined): InstanceMetadataFields {
    if (!row?.metadata) return { metadata: null, image_url: null, animation_url: null, external_app_url: null }
    return { metadata: row.metadata, image_url: row.image_url, animation_url: row.animation_url, external_app_url: row.external_app_url }
}
