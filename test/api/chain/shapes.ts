import { z } from 'zod'
import * as Api from '../../../api/chain/schemas'

/**
 * The Blockscout REST API v2 objects the tests hold answers to: the chain API's own schemas
 * (api/chain/schemas.ts, from which the OpenAPI document is generated), with refinements where a
 * test knows more than the document states: what this chain's answers always carry (a token that
 * is known, a timestamp that is set), the variants of one schema (lists and single views) and
 * checks across fields. No field list is written here: a field is added in api/chain/schemas.ts.
 *
 * Every field the schemas list must be present (null is fine where allowed, a missing key is
 * not). Fields they do not list are allowed (Blockscout adds chain-type extras).
 */

export const { Hash32, HexBytes, IsoTimestamp, IsoDate, IntString, TokenType, Reputation } = Api
export const Checksummed = Api.Address
export const DecString = Api.DecimalString
export const NonNegInt = Api.Count

type AbiValue = string | AbiValue[]
/** Decoded ABI values: scalars are strings, arrays and tuples nested arrays. */
export const AbiValue: z.ZodType<AbiValue> = z.lazy(() => z.union([z.string(), z.array(AbiValue)]))

// ---------------------------------------------------------------------------------------------
// Shared objects

export const AddressParam = Api.AddressParam
export type AddressParam = z.infer<typeof AddressParam>
export const Token = Api.Token
export type Token = z.infer<typeof Token>
export const TokenInstance = Api.TokenInstance
export const { Erc20Total, Erc721Total, Erc1155Total, Fee } = Api

/** Decoded values are strings or nested arrays of them (the document leaves them open). */
const DecodedParameter = Api.DecodedParameter.extend({ value: AbiValue })
export const DecodedInput = Api.DecodedInput.extend({ parameters: z.array(DecodedParameter) })
export type DecodedInput = z.infer<typeof DecodedInput>
export const DecodedLog = Api.DecodedLog.extend({ parameters: z.array(DecodedParameter.extend({ indexed: z.boolean() })) })

/**
 * Every transfer the tests see is of a token the indexer knows, and its `total` is the variant of
 * its token type (the union alone would accept any variant).
 */
export const TokenTransfer = Api.TokenTransfer.extend({ token: Token }).superRefine((tt, ctx) => {
    if (tt.total === null) return
    const variant = tt.token_type === 'ERC-20' || tt.token_type === 'ERC-7984' ? Erc20Total
        : tt.token_type === 'ERC-721' ? Erc721Total : Erc1155Total
    const parsed = variant.safeParse(tt.total)
    if (!parsed.success) ctx.addIssue({ code: 'custom', path: ['total'], message: `total is not the ${tt.token_type} variant: ${parsed.error.message}` })
    if (tt.token_type !== tt.token.type) ctx.addIssue({ code: 'custom', path: ['token_type'], message: `token_type ${tt.token_type} differs from token.type ${tt.token.type}` })
})
export type TokenTransfer = z.infer<typeof TokenTransfer>

// ---------------------------------------------------------------------------------------------
// Block: list variant (lists, /main-page/blocks) and single variant (/blocks/{x})

/** A block's nonce as the node gives it: 8 bytes (the document allows any bytes the row holds). */
const BlockNonce = z.string().regex(/^0x[0-9a-f]{16}$/, '8-byte hex')
/** Lists leave the counts they do not preload null. */
export const BlockListItem = Api.Block.extend({ nonce: BlockNonce, internal_transactions_count: z.null(), withdrawals_count: z.null() })
/** Every block here was indexed with its extra data. */
export const BlockSingle = Api.BlockDetails.extend({ nonce: BlockNonce, extra_data: HexBytes })
export type BlockListItem = z.infer<typeof BlockListItem>
export type BlockSingle = z.infer<typeof BlockSingle>

// ---------------------------------------------------------------------------------------------
// Transaction: list variant and single variant

/** Revert data as sent undecoded: whole bytes of lowercase hex, `0x` for a revert without data. */
const RawRevertReason = z.strictObject({ raw: HexBytes })
export const TransactionListItem = Api.Transaction.extend({ revert_reason: RawRevertReason.nullable() })
/**
 * Single view. The reference types token_transfers `TokenTransfer[]|null` and says the single
 * view holds the first 10; Blockscout preloads them for the single view, so an array is expected
 * whenever the transaction has transfers (checked in the tests); with none, [] or null. A revert
 * reason is decoded (Error, Panic, a custom error of a verified ABI) or else raw.
 */
export const TransactionSingle = Api.TransactionDetails.extend({
    token_transfers: z.array(TokenTransfer).max(10).nullable(),
    revert_reason: z.union([DecodedInput, RawRevertReason]).nullable(),
})
export type TransactionListItem = z.infer<typeof TransactionListItem>
export type TransactionSingle = z.infer<typeof TransactionSingle>

export const Log = Api.Log.extend({ decoded: DecodedLog.nullable() })
export type Log = z.infer<typeof Log>

// ---------------------------------------------------------------------------------------------
// Pages

export const page = Api.pageOf
export const EmptyPage = Api.EmptyPage

// ---------------------------------------------------------------------------------------------
// /stats

/**
 * Tiers are objects, with or without the `updated-gas-oracle: true` header. [choice] Blockscout
 * flattens them to numbers for a client without the header; the frontend reads only the objects.
 */
export const StatsWithOracle = Api.Stats

// ---------------------------------------------------------------------------------------------
// search

/** Every block found has its timestamp. */
export const SearchBlock = Api.SearchBlock.extend({ timestamp: IsoTimestamp })
export const { SearchTransaction, SearchAddress, SearchToken } = Api
/** Item types this chain can produce; ens_domain, metadata_tag, user_operation, blob are not. */
export const SearchItem = z.discriminatedUnion('type', [SearchBlock, SearchTransaction, SearchAddress, SearchToken])
export type SearchItem = z.infer<typeof SearchItem>
export const SearchPage = page(SearchItem)
export const SearchQuick = z.array(SearchItem)
export const CheckRedirect = Api.SearchRedirect

// ---------------------------------------------------------------------------------------------
// address, counters, tabs counters; balances; holders

export const Address = Api.AddressDetails
export type Address = z.infer<typeof Address>
export const AddressCounters = Api.AddressCounters
export const TabsCounters = Api.AddressTabsCounters
/** /addresses/{h}/token-balances: never a token instance. */
export const TokenBalance = Api.TokenBalance.extend({ token_instance: z.null() })
/** /addresses/{h}/tokens?type=… items (paginated alternative). */
export const AddressTokenItem = Api.TokenBalance
/** GET /addresses (top accounts) items: an AddressParam with its balance and transaction count (a string). */
export const TopAddress = Api.TopAddressesPage.shape.items.element
export type TopAddress = z.infer<typeof TopAddress>
/** The top-accounts page: a list page plus Blockscout's top-level fiat rate and coin supply. */
export const TopAddressesPage = Api.TopAddressesPage
export const Holder = Api.TokenHolder
/**
 * NFTs as the instance routes show them: of a known token, an owner exactly for ERC-721s, and the
 * media fields only with a fetched metadata document (docs/nft-metadata.md).
 */
function mediaOnlyWithMetadata(i: { metadata: unknown; image_url: string | null; animation_url: string | null; external_app_url: string | null }, ctx: z.RefinementCtx): void {
    if (i.metadata !== null) return
    for (const field of ['image_url', 'animation_url', 'external_app_url'] as const) {
        if (i[field] !== null) ctx.addIssue({ code: 'custom', path: [field], message: `${field} without a metadata document` })
    }
}
export const Instance = Api.TokenInstance.extend({ token: Token }).superRefine((i, ctx) => {
    if ((i.owner !== null) !== (i.token.type === 'ERC-721')) ctx.addIssue({ code: 'custom', path: ['owner'], message: `owner ${JSON.stringify(i.owner)} for a ${i.token.type}` })
    if (i.is_unique !== (i.token.type === 'ERC-721')) ctx.addIssue({ code: 'custom', path: ['is_unique'], message: `is_unique ${i.is_unique} for a ${i.token.type}` })
    mediaOnlyWithMetadata(i, ctx)
})
export const AddressNft = Api.AddressNft.superRefine((n, ctx) => {
    if (n.token_type !== n.token.type) ctx.addIssue({ code: 'custom', path: ['token_type'], message: 'token_type is the token\'s type' })
    mediaOnlyWithMetadata(n, ctx)
})
export const AddressNftCollection = Api.AddressNftCollection
export const InstanceTransfersCount = Api.TokenInstanceTransfersCount.strict()
export const TokenCounters = Api.TokenCounters

// ---------------------------------------------------------------------------------------------
// small objects

export const { TransactionStats, IndexingStatus, BackendVersion, TransactionsChart } = Api
/**
 * v1 countdown. The reference lists `result` only; [choice] the Etherscan-style envelope Blockscout's
 * v1 RPC API always sends (`status: "1"`, `message: "OK"`) is required too.
 */
export const Countdown = z.object({
    status: z.literal('1'),
    message: z.literal('OK'),
    result: z.object({
        CountdownBlock: IntString,
        CurrentBlock: IntString,
        EstimateTimeInSec: DecString,
        RemainingBlock: IntString,
    }),
})

// ---------------------------------------------------------------------------------------------
// smart contracts

export const SmartContractUnverified = Api.SmartContractBytecode
/** Every contract verified here has its compiler, optimizer setting, time and ABI. */
export const SmartContractVerified = Api.SmartContractVerified.extend({
    compiler_version: z.string(),
    optimization_enabled: z.boolean(),
    verified_at: IsoTimestamp,
    abi: z.array(z.record(z.string(), z.unknown())),
})

/**
 * GET /smart-contracts items: Blockscout's SmartContractListItem (its OpenApiSpex schema, closed
 * object). license_type is one of its enum names, `none` when the source declares none it knows.
 */
export const SmartContractListItem = Api.SmartContractListItem.extend({
    language: z.enum(['solidity', 'vyper', 'yul', 'geas']).nullable(),
    license_type: z.enum(['none', 'unlicense', 'mit', 'gnu_gpl_v2', 'gnu_gpl_v3', 'gnu_lgpl_v2_1', 'gnu_lgpl_v3', 'bsd_2_clause',
        'bsd_3_clause', 'mpl_2_0', 'osl_3_0', 'apache_2_0', 'gnu_agpl_v3', 'bsl_1_1']).nullable(),
}).strict()
export type SmartContractListItem = z.infer<typeof SmartContractListItem>
export const SmartContractCounters = Api.SmartContractCounters.strict()

// ---------------------------------------------------------------------------------------------
// errors

export const NotFound = Api.ChainError.extend({ message: z.literal('Not found') })
export const UnknownAction = Api.ChainError.extend({ message: z.literal('Unknown API v2 action') })
/**
 * 422: Blockscout gives the OpenApiSpex body `{errors:[{title, source:{pointer}, detail}]}` for
 * parameters failing its OpenAPI spec, and `{message}` for the legacy controller checks. Either is
 * accepted; whichever it is must say something.
 */
const Said = z.string().min(1)
const ValidationEntry = Api.ChainValidationError.shape.errors.element
export const Unprocessable = z.union([
    Api.ChainValidationError.extend({
        errors: z.array(ValidationEntry.extend({ title: Said, source: ValidationEntry.shape.source.extend({ pointer: Said }), detail: Said })).min(1),
    }),
    Api.ChainError.extend({ message: Said }),
])

// ---------------------------------------------------------------------------------------------
// Internal transactions, balance history, state changes (Blockscout's current views; the reference
// lists the routes, not their items)

/** Every frame here has a value and its block's timestamp; its type is one of the tracer's. */
export const InternalTransaction = Api.InternalTransaction.extend({
    type: z.enum(['call', 'delegatecall', 'staticcall', 'callcode', 'create', 'create2', 'selfdestruct', 'reward']),
    value: IntString,
    timestamp: IsoTimestamp,
})
export type InternalTransaction = z.infer<typeof InternalTransaction>

/** Every point here is at a known block, after a known change. */
export const CoinBalancePoint = Api.CoinBalancePoint.extend({
    block_timestamp: IsoTimestamp,
    delta: Api.SignedIntString,
    value: IntString,
})
export const CoinBalanceByDay = Api.CoinBalanceByDay

export const StateChange = Api.StateChange
export type StateChange = z.infer<typeof StateChange>
