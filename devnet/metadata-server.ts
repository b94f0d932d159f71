import { createServer, IncomingMessage, ServerResponse } from 'http'
import { listenLoopback, Loopback } from './loopback'

/**
 * The devnet's NFT metadata server (docs/devnet.md#nft-metadata-server): ERC-721 style JSON at
 * `/nft/{id}.json` and ERC-1155 style JSON at `/erc1155/{id}.json`, each with an SVG image it also
 * serves, so the zoo's NFTs point their token URIs at a host that answers without the internet.
 * Every token id has metadata, derived from the id alone: the same id always gets the same answer,
 * and whoever seeds NFTs may pick any ids.
 */

const MAX_UINT256 = (1n << 256n) - 1n
/** ERC-721 token URIs end in the id in decimal (OpenZeppelin's baseURI + id). */
const NFT_PATH = /^\/nft\/(\d{1,78})\.(json|svg)$/
/** ERC-1155's `{id}`: the id as 64 lowercase hex digits, no 0x (EIP-1155, "Metadata"). */
const ERC1155_PATH = /^\/erc1155\/([0-9a-f]{64})\.(json|svg)$/

const COLOURS = ['crimson', 'darkorange', 'gold', 'seagreen', 'steelblue', 'slateblue', 'orchid', 'sienna'] as const
const SHAPES = ['circle', 'square', 'triangle', 'diamond'] as const

/** The traits of a token id: fixed by the id, so two fetches never disagree. */
function traitsOf(id: bigint) {
    return { colour: COLOURS[Number(id % BigInt(COLOURS.length))], shape: SHAPES[Number((id / 8n) % BigInt(SHAPES.length))] }
}

function svgOf(label: string, id: bigint): string {
    const { colour, shape } = traitsOf(id)
    const figure = {
        circle: '<circle cx="100" cy="90" r="50"/>',
        square: '<rect x="50" y="40" width="100" height="100"/>',
        triangle: '<polygon points="100,35 155,140 45,140"/>',
        diamond: '<polygon points="100,30 160,90 100,150 40,90"/>',
    }[shape]
    const text = label.replace(/[<>&]/g, '')
    return `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="200" viewBox="0 0 200 200"><rect width="200" height="200" fill="white"/><g fill="${colour}">${figure}</g><text x="100" y="185" font-family="sans-serif" font-size="14" text-anchor="middle">${text}</text></svg>`
}

/** ERC-721 metadata (the EIP's JSON schema: name, description, image) with OpenSea-style attributes. */
function nftMetadata(baseUrl: string, id: bigint) {
    const { colour, shape } = traitsOf(id)
    return {
        name: `Devnet NFT #${id}`,
        description: 'An ERC-721 token of the devnet zoo; its metadata and image come from the devnet\'s local metadata server.',
        image: `${baseUrl}/nft/${id}.svg`,
        attributes: [
            { trait_type: 'Colour', value: colour },
            { trait_type: 'Shape', value: shape },
            { display_type: 'number', trait_type: 'Level', value: Number(id % 10n) + 1 },
        ],
    }
}

/** ERC-1155 metadata (the EIP's JSON schema: name, decimals, description, image, properties), with the same traits as attributes for explorers that read those. */
function erc1155Metadata(baseUrl: string, hexId: string, id: bigint) {
    const { colour, shape } = traitsOf(id)
    return {
        name: `Devnet multi-token ${id}`,
        description: 'An ERC-1155 token of the devnet zoo; its metadata and image come from the devnet\'s local metadata server.',
        image: `${baseUrl}/erc1155/${hexId}.svg`,
        decimals: 0,
        properties: { colour, shape },
        attributes: [
            { trait_type: 'Colour', value: colour },
            { trait_type: 'Shape', value: shape },
        ],
    }
}

function answer(res: ServerResponse, status: number, type: string, body: string): void {
    // Any origin: a browser showing an explorer page may fetch the metadata or the image itself.
    res.writeHead(status, { 'content-type': type, 'access-control-allow-origin': '*', 'content-length': Buffer.byteLength(body) })
    res.end(body)
}

function handle(baseUrl: () => string, req: IncomingMessage, res: ServerResponse): void {
    const json = (status: number, value: unknown) => answer(res, status, 'application/json; charset=utf-8', JSON.stringify(value))
    if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.setHeader('allow', 'GET, HEAD')
        return json(405, { error: `${req.method} is not served: GET the metadata or the image` })
    }
    const path = new URL(req.url ?? '/', 'http://metadata').pathname
    const nft = NFT_PATH.exec(path)
    const multi = ERC1155_PATH.exec(path)
    const id = nft ? BigInt(nft[1]) : multi ? BigInt(`0x${multi[1]}`) : undefined
    if (id === undefined || id > MAX_UINT256) {
        return json(404, { error: `no metadata at ${path}: the paths are /nft/{id}.json and /nft/{id}.svg (id in decimal, a uint256) and /erc1155/{id}.json and /erc1155/{id}.svg (id as 64 lowercase hex digits, as ERC-1155 substitutes {id})` })
    }
    const [kind, extension] = nft ? ['nft', nft[2]] : ['erc1155', multi![2]]
    if (extension === 'svg') return answer(res, 200, 'image/svg+xml', svgOf(kind === 'nft' ? `#${id}` : `${id}`, id))
    return json(200, kind === 'nft' ? nftMetadata(baseUrl(), id) : erc1155Metadata(baseUrl(), multi![1], id))
}

/** Starts the server on 127.0.0.1: the given port (`DEVNET_METADATA_PORT` under `npm start`) or a free one (0). */
export async function startMetadataServer(port = 0): Promise<Loopback> {
    let url = ''
    // The images are linked by the URL the server listens on, known once it listens.
    const server = createServer((req, res) => handle(() => url, req, res))
    const loopback = await listenLoopback(server, port)
    url = loopback.url
    return loopback
}
