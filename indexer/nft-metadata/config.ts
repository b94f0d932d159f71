import { z } from 'zod'
import { boolFlag, url } from '../../common/config'

/** The NFT metadata fetcher's variables (docs/configuration.md#nft-metadata); what each bounds: docs/nft-metadata.md */
export const NftMetadataSettingsSchema = z.object({
    NFT_METADATA_ENABLED: boolFlag.default(true)
        .describe('run the NFT metadata fetcher in the indexer process (see [nft-metadata.md](nft-metadata.md))'),
    NFT_METADATA_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(10)
        .describe('metadata documents fetched at once'),
    NFT_METADATA_PER_HOST: z.coerce.number().int().min(1).max(100).default(2)
        .describe('metadata documents fetched at once from one host (the host of the first URL; a redirect counts against it)'),
    NFT_METADATA_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000)
        .describe('milliseconds one document may take, DNS, redirects and body included'),
    NFT_METADATA_MAX_KB: z.coerce.number().int().min(1).max(65_536).default(1024)
        .describe('largest metadata document in KB (an HTTP body is cut off past it; a `data:` URI is measured decoded)'),
    NFT_METADATA_IPFS_GATEWAY: url.default('https://ipfs.io/ipfs/')
        .describe('HTTP gateway that `ipfs://` URIs (and images) are read and linked through: `ipfs://{cid}/{path}` becomes this URL followed by `{cid}/{path}`'),
    NFT_METADATA_ARWEAVE_GATEWAY: url.optional()
        .meta({ description: 'HTTP gateway for `ar://{id}` URIs, which become this URL followed by `{id}`', unset: '`ar://` URIs are recorded as unsupported' }),
    NFT_METADATA_ALLOW_PRIVATE: boolFlag.default(false)
        .describe('fetch from loopback, private and other non-public addresses too (the webhooks\' rule otherwise; tests and local development only)'),
    NFT_METADATA_ALLOW_HOSTS: z.string().regex(/^[^\s,/]+(,[^\s,/]+)*$/, 'must be host or host:port entries separated by commas').optional()
        .meta({ description: 'hosts (`host` or `host:port`, as in the URL) fetched from even at a non-public address, e.g. a local metadata server; the gateways are always allowed', unset: 'none' }),
    NFT_METADATA_RETRY_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60)
        .describe('pause after a first failure; it doubles with each further failure'),
    NFT_METADATA_RETRY_MAX_SECONDS: z.coerce.number().int().min(1).max(2_592_000).default(86_400)
        .describe('longest pause between two attempts'),
    NFT_METADATA_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(10_000).default(20)
        .describe('attempts after which a failing instance is left failed (until an operator sets its `next_attempt_at` again)'),
})

export type NftMetadataSettings = z.infer<typeof NftMetadataSettingsSchema>
