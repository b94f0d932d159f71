import { Gateways, viaGateway } from './gateways'

/**
 * Blockscout's media fields of a token instance, taken from its metadata document as Blockscout's
 * NFT helper takes them, and stored beside it so the API renders without reading the document:
 * - `image_url`: `image_url`, else `image`, else `properties.image.description` (the ERC-1155
 *   JSON-schema form), blank as null;
 * - `animation_url`: `animation_url`;
 * - `external_app_url`: `external_url`, blank as null.
 * An image given as an object is its `description`, as a list its first item; `ipfs://` links go
 * through the configured gateway (Blockscout uses ipfs.io's). Images are linked, never fetched.
 */

export interface MediaFields {
    image_url: string | null
    animation_url: string | null
    external_app_url: string | null
}

function media(value: unknown, gateways: Gateways): string | null {
    if (Array.isArray(value)) return media(value[0], gateways)
    if (value !== null && typeof value === 'object') return media((value as Record<string, unknown>).description, gateways)
    if (typeof value !== 'string') return null
    return viaGateway(value, gateways) ?? value
}

const nonBlank = (value: string | null) => (value !== null && value.trim() !== '' ? value : null)

function field(metadata: Record<string, unknown>, key: string): unknown {
    return Object.prototype.hasOwnProperty.call(metadata, key) ? metadata[key] : undefined
}

export function mediaFields(metadata: Record<string, unknown>, gateways: Gateways): MediaFields {
    const properties = field(metadata, 'properties')
    const propertyImage = properties && typeof properties === 'object' ? (properties as Record<string, unknown>).image : undefined
    const described = propertyImage && typeof propertyImage === 'object' ? (propertyImage as Record<string, unknown>).description : undefined
    const image = field(metadata, 'image_url') ?? field(metadata, 'image')
    const external = field(metadata, 'external_url')
    return {
        image_url: nonBlank(image != null ? media(image, gateways) : typeof described === 'string' ? described : null),
        animation_url: media(field(metadata, 'animation_url'), gateways),
        external_app_url: typeof external === 'string' ? nonBlank(external) : null,
    }
}
