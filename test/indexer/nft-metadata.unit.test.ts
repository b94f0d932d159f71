import { expect } from 'chai'
import { renderInstanceMetadata } from '../../api/chain/render/nft-metadata'
import { NftMetadataSettingsSchema } from '../../indexer/nft-metadata/config'
import { decodeDataUri, parseMetadata, readDocument } from '../../indexer/nft-metadata/document'
import { gatewayHosts, viaGateway } from '../../indexer/nft-metadata/gateways'
import { mediaFields } from '../../indexer/nft-metadata/media-fields'
import { retryDelaySeconds } from '../../indexer/nft-metadata/store'
import { substituteId } from '../../indexer/nft-metadata/token-uri'

/** The NFT metadata fetcher's rules on their own (docs/nft-metadata.md); against real servers and a chain: nft-metadata.test.ts. */
describe('NFT metadata: rules', function () {
    const gateways = { ipfs: 'https://gw.example/ipfs/', arweave: 'https://ar.example' }

    it("substitutes ERC-1155's {id} as 64 lowercase hex digits, every occurrence", function () {
        expect(substituteId('https://x/{id}.json', '1155')).to.equal(`https://x/${'0'.repeat(61)}483.json`)
        expect(substituteId('{id}/{id}', '255')).to.equal(`${'0'.repeat(62)}ff/${'0'.repeat(62)}ff`)
        const max = (2n ** 256n - 1n).toString()
        expect(substituteId('{id}', max)).to.equal('f'.repeat(64))
        expect(substituteId('https://x/static.json', '7')).to.equal('https://x/static.json')
    })

    it('decodes data: URIs, base64 and percent-encoded, and refuses them past the cap before decoding', function () {
        const json = '{"name":"on chain","image":"data:image/svg+xml;base64,PHN2Zy8+"}'
        expect(decodeDataUri(`data:application/json;base64,${Buffer.from(json).toString('base64')}`, 1024)).to.deep.equal({ body: Buffer.from(json) })
        expect(decodeDataUri(`data:application/json,${encodeURIComponent(json)}`, 1024)).to.deep.equal({ body: Buffer.from(json) })
        expect(decodeDataUri(`data:application/json;utf8,${json}`, 1024)).to.deep.equal({ body: Buffer.from(json) })
        expect(decodeDataUri(`data:application/json;base64,${'A'.repeat(4000)}`, 1024)).to.deep.equal({ error: 'too large: more than 1024 bytes' })
        expect(decodeDataUri('data:application/json;base64,!!!', 1024)).to.deep.equal({ error: 'data URI: invalid base64' })
        expect(decodeDataUri('data:application/json,%E0%A4%A', 1024)).to.deep.equal({ error: 'data URI: invalid percent-encoding' })
        expect(decodeDataUri('data:nothing', 1024)).to.deep.equal({ error: 'data URI: no comma before the data' })
    })

    it('keeps JSON objects only, without NUL characters, at most 64 levels deep, a "__proto__" key as a key', function () {
        expect(parseMetadata(Buffer.from('{"a":1'), 100)).to.include({ ok: false })
        expect((parseMetadata(Buffer.from('not json'), 100) as { error: string }).error).to.match(/^invalid JSON: /)
        expect(parseMetadata(Buffer.from('[1,2]'), 100)).to.deep.equal({ ok: false, error: 'not a JSON object: an array' })
        expect(parseMetadata(Buffer.from('"x"'), 100)).to.deep.equal({ ok: false, error: 'not a JSON object: string' })
        expect(parseMetadata(Buffer.from('{"n\\u0000a":"x\\u0000y","l":[{"z":"\\u0000"}]}'), 100)).to.deep.equal({ ok: true, metadata: { na: 'xy', l: [{ z: '' }] } })
        expect(parseMetadata(Buffer.from('\uFEFF{"a":1}'), 100)).to.deep.equal({ ok: true, metadata: { a: 1 } })
        const deep = '{"a":'.repeat(70) + '1' + '}'.repeat(70)
        expect(parseMetadata(Buffer.from(deep), 10_000)).to.deep.equal({ ok: false, error: 'too deep: more than 64 levels' })
        const proto = parseMetadata(Buffer.from('{"__proto__":{"polluted":true}}'), 100) as { ok: true; metadata: Record<string, unknown> }
        expect(Object.keys(proto.metadata)).to.deep.equal(['__proto__'])
        expect((proto.metadata as { polluted?: boolean }).polluted).to.equal(undefined)
        expect(JSON.stringify(proto.metadata)).to.equal('{"__proto__":{"polluted":true}}')
        expect(parseMetadata(Buffer.alloc(101, 0x20), 100)).to.deep.equal({ ok: false, error: 'too large: more than 100 bytes' })
    })

    it('reads data:, inline JSON and unsupported URIs without any network', async function () {
        const get = async (): Promise<never> => {
            throw new Error('no network expected')
        }
        const sources = { gateways: { ipfs: 'https://gw.example/ipfs/' }, maxBytes: 1024, get }
        expect(await readDocument(`data:application/json;base64,${Buffer.from('{"a":1}').toString('base64')}`, sources)).to.deep.equal({ ok: true, metadata: { a: 1 } })
        expect(await readDocument(' {"inline":true} ', sources)).to.deep.equal({ ok: true, metadata: { inline: true } })
        expect(await readDocument('', sources)).to.deep.equal({ ok: false, error: 'empty token URI' })
        expect(await readDocument('ar://abc', sources)).to.deep.equal({ ok: false, error: 'unsupported: ar:// URIs need NFT_METADATA_ARWEAVE_GATEWAY' })
        expect(await readDocument('ftp://host/x.json', sources)).to.deep.equal({ ok: false, error: 'unsupported: scheme of ftp://host/x.json' })
    })

    it('rewrites ipfs:// (and the ipfs://ipfs/ form) and ar:// through the gateways; other URLs stay', function () {
        expect(viaGateway('ipfs://QmCid/1.json', gateways)).to.equal('https://gw.example/ipfs/QmCid/1.json')
        expect(viaGateway('IPFS://ipfs/QmCid/1.json', gateways)).to.equal('https://gw.example/ipfs/QmCid/1.json')
        expect(viaGateway('ar://tx123', gateways)).to.equal('https://ar.example/tx123')
        expect(viaGateway('ar://tx123', { ipfs: gateways.ipfs })).to.equal(null)
        expect(viaGateway('https://host/a.json', gateways)).to.equal('https://host/a.json')
        expect(gatewayHosts({ ipfs: 'http://127.0.0.1:8080/ipfs/', arweave: 'https://AR.example' })).to.deep.equal(['127.0.0.1:8080', 'ar.example'])
    })

    it("takes Blockscout's media fields: image_url, else image, else properties.image.description; first of a list; an object's description", function () {
        expect(mediaFields({ image: 'ipfs://QmImg', animation_url: 'ipfs://QmAnim', external_url: 'https://app.example/1' }, gateways)).to.deep.equal({
            image_url: 'https://gw.example/ipfs/QmImg', animation_url: 'https://gw.example/ipfs/QmAnim', external_app_url: 'https://app.example/1',
        })
        expect(mediaFields({ image_url: 'https://a/x.png', image: 'https://a/y.png' }, gateways).image_url).to.equal('https://a/x.png')
        expect(mediaFields({ image: ['https://a/first.png', 'https://a/second.png'] }, gateways).image_url).to.equal('https://a/first.png')
        expect(mediaFields({ image: { description: 'https://a/described.png' } }, gateways).image_url).to.equal('https://a/described.png')
        expect(mediaFields({ properties: { image: { description: 'https://a/prop.png' } } }, gateways).image_url).to.equal('https://a/prop.png')
        expect(mediaFields({ image: '  ', external_url: ' ' }, gateways)).to.deep.equal({ image_url: null, animation_url: null, external_app_url: null })
        expect(mediaFields({ image: 42, external_url: 7 }, gateways)).to.deep.equal({ image_url: null, animation_url: null, external_app_url: null })
        expect(mediaFields({}, gateways)).to.deep.equal({ image_url: null, animation_url: null, external_app_url: null })
    })

    it('backs off 2^(n−1) times the first pause, capped, and stops after the last attempt', function () {
        const policy = { firstDelaySeconds: 60, maxDelaySeconds: 3600, maxAttempts: 10 }
        expect([1, 2, 3, 4, 5, 6, 7].map((n) => retryDelaySeconds(n, policy))).to.deep.equal([60, 120, 240, 480, 960, 1920, 3600])
        expect(retryDelaySeconds(9, policy)).to.equal(3600)
        expect(retryDelaySeconds(10, policy)).to.equal(null)
        expect(retryDelaySeconds(1000, { ...policy, maxAttempts: 10_000 })).to.equal(3600)
    })

    it('renders the instance fields: null while nothing was fetched, the stored ones once it was', function () {
        const none = { metadata: null, image_url: null, animation_url: null, external_app_url: null }
        expect(renderInstanceMetadata(undefined)).to.deep.equal(none)
        const base = { token: '0xab', token_id: '1', image_url: null, animation_url: null, external_app_url: null }
        expect(renderInstanceMetadata({ ...base, status: 'failed', metadata: null })).to.deep.equal(none)
        const fetched = { ...base, status: 'fetched', metadata: { name: 'n' }, image_url: 'https://i', external_app_url: 'https://e' }
        expect(renderInstanceMetadata(fetched)).to.deep.equal({ metadata: { name: 'n' }, image_url: 'https://i', animation_url: null, external_app_url: 'https://e' })
    })

    it('settings: defaults as documented, and a bad host list refused', function () {
        const parsed = NftMetadataSettingsSchema.parse({})
        expect(parsed).to.include({ NFT_METADATA_ENABLED: true, NFT_METADATA_ALLOW_PRIVATE: false, NFT_METADATA_PER_HOST: 2, NFT_METADATA_IPFS_GATEWAY: 'https://ipfs.io/ipfs/' })
        expect(NftMetadataSettingsSchema.safeParse({ NFT_METADATA_ALLOW_HOSTS: '127.0.0.1:8553,meta.local' }).success).to.equal(true)
        expect(NftMetadataSettingsSchema.safeParse({ NFT_METADATA_ALLOW_HOSTS: 'http://x/' }).success).to.equal(false)
    })
})
