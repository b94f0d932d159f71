/**
 * `ipfs://` and `ar://` as HTTP URLs through the operator's gateways: how a document is fetched and
 * how an image is linked (Blockscout links `ipfs://` images through a gateway too). A gateway URL is
 * used as a prefix, so it ends with a slash.
 */

export interface Gateways {
    ipfs: string
    /** unset: `ar://` is not supported */
    arweave?: string
}

const withSlash = (url: string) => (url.endsWith('/') ? url : url + '/')

/** The gateway URL of an `ipfs://` or `ar://` URI; the URI itself for any other; null for `ar://` without a gateway. */
export function viaGateway(uri: string, gateways: Gateways): string | null {
    const lower = uri.slice(0, 12).toLowerCase()
    // `ipfs://ipfs/{cid}` is a common misspelling of `ipfs://{cid}`; both name the same content.
    if (lower.startsWith('ipfs://ipfs/')) return withSlash(gateways.ipfs) + uri.slice('ipfs://ipfs/'.length)
    if (lower.startsWith('ipfs://')) return withSlash(gateways.ipfs) + uri.slice('ipfs://'.length)
    if (lower.startsWith('ar://')) return gateways.arweave ? withSlash(gateways.arweave) + uri.slice('ar://'.length) : null
    return uri
}

/** The hosts of the gateways (URL.host), which the operator chose and which are fetched from even at a private address. */
export function gatewayHosts(gateways: Gateways): string[] {
    return [gateways.ipfs, gateways.arweave].filter((g): g is string => !!g).map((g) => new URL(g).host.toLowerCase())
}
