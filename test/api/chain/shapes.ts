import { getAddress, isAddress } from 'viem'
import { z } from 'zod'

/**
 * Zod schemas of the Blockscout REST API v2 objects, as Blockscout's backend renders them (its
 * api/v2 views and OpenApiSpex schemas: "the reference" below).
 *
 * Strict about presence and JSON type of every field the reference lists: a `string|null` field
 * must be present (null is fine, a missing key is not). Fields the reference does not list are
 * allowed (Blockscout adds chain-type extras), and stripped from the parsed value.
 *
 * Where the reference is silent or [unconfirmed], the choice is noted next to the schema.
 */

// ---------------------------------------------------------------------------------------------
// Scalars

/** 32-byte hash: 0x + 64 lowercase hex. */
export const Hash32 = z.string().regex(/^0x[0-9a-f]{64}$/, 'a 0x-hash of 64 lowercase hex digits')
/** Address, EIP-55 checksummed. */
export const Checksummed = z.string().refine((s) => isAddress(s, { strict: false }) && getAddress(s) === s, 'an EIP-55 checksummed address')
/** Raw bytes: 0x + lowercase hex (even length). */
export const HexBytes = z.string().regex(/^0x([0-9a-f]{2})*$/, 'lowercase 0x-hex bytes')
/** ISO-8601 UTC with microseconds. */
export const IsoTimestamp = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/, 'YYYY-MM-DDTHH:MM:SS.ffffffZ')
export const IsoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'YYYY-MM-DD')
/** Big integers (wei, gas, token amounts, counters) as decimal strings. */
export const IntString = z.string().regex(/^\d+$/, 'a non-negative integer as a decimal string')
/** Decimals (fiat, ratios) as plain-notation decimal strings. */
export const DecString = z.string().regex(/^-?\d+(\.\d+)?$/, 'a decimal in plain notation as a string')
export const Int = z.number().int()
export const NonNegInt = z.number().int().min(0)
export const TokenType = z.enum(['ERC-20', 'ERC-721', 'ERC-1155', 'ERC-404', 'ERC-7984'])
export const Reputation = z.enum(['ok', 'scam'])

type AbiValue = string | AbiValue[]
/** Decoded ABI values: scalars are strings, arrays and tuples nested arrays. */
export const AbiValue: z.ZodType<AbiValue> = z.lazy(() => z.union([z.string(), z.array(AbiValue)]))
const JsonObject = z.record(z.string(), z.unknown())

// ---------------------------------------------------------------------------------------------
// AddressParam

const Tag = z.object({ address_hash: z.string(), display_name: z.string(), label: z.string() })
export const AddressParam = z.object({
    hash: Checksummed,
    is_contract: z.boolean(),
    name: z.string().nullable(),
    is_scam: z.boolean(),
    reputation: Reputation,
    proxy_type: z.string().nullable(),
    implementations: z.array(z.object({ address_hash: Checksummed, name: z.string().nullable() })),
    is_verified: z.boolean().nullable(),
    ens_domain_name: z.string().nullable(),
    metadata: z.object({ tags: z.array(z.object({ slug: z.string(), name: z.string(), tagType: z.string(), ordinal: z.number(), meta: JsonObject.nullable() })) }).nullable(),
    private_tags: z.array(Tag),
    public_tags: z.array(Tag),
    watchlist_names: z.array(z.object({ display_name: z.string(), label: z.string() })),
})
export type AddressParam = z.infer<typeof AddressParam>

// ---------------------------------------------------------------------------------------------
// Token, TokenInstance

export const Token = z.object({
    address_hash: Checksummed,
    symbol: z.string().nullable(),
    name: z.string().nullable(),
    decimals: IntString.nullable(),
    type: TokenType,
    holders_count: IntString.nullable(),
    exchange_rate: DecString.nullable(),
    volume_24h: DecString.nullable(),
    total_supply: IntString.nullable(),
    icon_url: z.string().nullable(),
    circulating_market_cap: DecString.nullable(),
    circulating_supply: DecString.nullable(),
    reputation: Reputation.nullable(),
})
export type Token = z.infer<typeof Token>

export const TokenInstance = z.object({
    id: IntString,
    metadata: JsonObject.nullable(),
    owner: AddressParam.nullable(),
    token: Token.nullable(),
    external_app_url: z.string().nullable(),
    animation_url: z.string().nullable(),
    image_url: z.string().nullable(),
    is_unique: z.boolean().nullable(),
    thumbnails: JsonObject.nullable(),
    media_type: z.string().nullable(),
    media_url: z.string().nullable(),
})

// ---------------------------------------------------------------------------------------------
// TokenTransfer, with the `total` variant chosen by token_type

export const Erc20Total = z.object({ value: IntString, decimals: IntString.nullable() })
export const Erc721Total = z.object({ token_id: IntString.nullable(), token_instance: TokenInstance.nullable() })
export const Erc1155Total = z.object({ token_id: IntString.nullable(), value: IntString, decimals: IntString.nullable(), token_instance: TokenInstance.nullable() })

export const TokenTransfer = z.object({
    transaction_hash: Hash32,
    from: AddressParam,
    to: AddressParam,
    total: z.union([Erc1155Total, Erc20Total, Erc721Total]).nullable(),
    token: Token,
    type: z.enum(['token_transfer', 'token_minting', 'token_burning', 'token_spawning']),
    timestamp: IsoTimestamp.nullable(),
    method: z.string().nullable(),
    block_hash: Hash32,
    block_number: NonNegInt,
    log_index: NonNegInt,
    token_type: TokenType,
}).superRefine((tt, ctx) => {
    // The union above would accept any variant; the variant must be the one of the token type.
    if (tt.total === null) return
    const variant = tt.token_type === 'ERC-20' || tt.token_type === 'ERC-7984' ? Erc20Total
        : tt.token_type === 'ERC-721' ? Erc721Total : Erc1155Total
    const parsed = variant.safeParse(tt.total)
    if (!parsed.success) ctx.addIssue({ code: 'custom', path: ['total'], message: `total is not the ${tt.token_type} variant: ${parsed.error.message}` })
    if (tt.token_type !== tt.token.type) ctx.addIssue({ code: 'custom', path: ['token_type'], message: `token_type ${tt.token_type} differs from token.type ${tt.token.type}` })
})
export type TokenTransfer = z.infer<typeof TokenTransfer>

// ---------------------------------------------------------------------------------------------
// DecodedInput and decoded logs, Fee

export const DecodedInput = z.object({
    method_id: z.string().regex(/^[0-9a-f]{8}$/, '8 lowercase hex digits without 0x'),
    method_call: z.string(),
    parameters: z.array(z.object({ name: z.string(), type: z.string(), value: AbiValue })),
})
export type DecodedInput = z.infer<typeof DecodedInput>
export const DecodedLog = z.object({
    method_id: z.string().regex(/^[0-9a-f]{8}$/),
    method_call: z.string(),
    parameters: z.array(z.object({ name: z.string(), type: z.string(), value: AbiValue, indexed: z.boolean() })),
})

export const Fee = z.object({ type: z.enum(['actual', 'maximum']), value: IntString.nullable() })

// ---------------------------------------------------------------------------------------------
// Block: list variant (lists, /main-page/blocks) and single variant (/blocks/{x})

const blockFields = {
    height: NonNegInt,
    timestamp: IsoTimestamp,
    transactions_count: NonNegInt,
    miner: AddressParam,
    size: NonNegInt.nullable(),
    hash: Hash32,
    parent_hash: Hash32,
    difficulty: IntString.nullable(),
    total_difficulty: IntString.nullable(),
    gas_used: IntString,
    gas_limit: IntString,
    nonce: z.string().regex(/^0x[0-9a-f]{16}$/, '8-byte hex'),
    base_fee_per_gas: IntString.nullable(),
    burnt_fees: IntString.nullable(),
    priority_fee: IntString.nullable(),
    transaction_fees: IntString,
    uncles_hashes: z.array(z.object({ hash: Hash32 })),
    gas_target_percentage: z.number(),
    gas_used_percentage: z.number(),
    burnt_fees_percentage: z.number().nullable(),
    type: z.enum(['block', 'uncle', 'reorg']),
    is_pending_update: z.boolean().nullable(),
}
export const BlockListItem = z.object({
    ...blockFields,
    internal_transactions_count: z.null(),
    withdrawals_count: z.null(),
    rewards: z.array(z.object({ reward: IntString, type: z.enum(['emission_funds', 'uncle', 'validator']) })),
})
/**
 * [choice] extra_data and state_root: the frontend's Block type declares them and its block page
 * shows them; Blockscout's view leaves them out (commented TODOs). Sent here, in the single view
 * only; state_root is null for blocks indexed before the indexer kept it.
 */
export const BlockSingle = z.object({
    ...blockFields,
    internal_transactions_count: NonNegInt.nullable(),
    withdrawals_count: NonNegInt.nullable(),
    rewards: z.array(z.object({ reward: IntString, type: z.string() })),
    extra_data: HexBytes,
    state_root: Hash32.nullable(),
})
export type BlockListItem = z.infer<typeof BlockListItem>
export type BlockSingle = z.infer<typeof BlockSingle>

// ---------------------------------------------------------------------------------------------
// Transaction: list variant and single variant

const transactionFields = {
    hash: Hash32,
    result: z.string().min(1),
    status: z.enum(['ok', 'error']).nullable(),
    block_number: NonNegInt.nullable(),
    timestamp: IsoTimestamp.nullable(),
    from: AddressParam,
    to: AddressParam.nullable(),
    created_contract: AddressParam.nullable(),
    confirmations: NonNegInt,
    confirmation_duration: z.array(z.number()).max(2),
    value: IntString,
    fee: Fee,
    gas_price: IntString.nullable(),
    type: Int.nullable(),
    gas_used: IntString.nullable(),
    gas_limit: IntString,
    max_fee_per_gas: IntString.nullable(),
    max_priority_fee_per_gas: IntString.nullable(),
    base_fee_per_gas: IntString.nullable(),
    priority_fee: IntString.nullable(),
    transaction_burnt_fee: IntString.nullable(),
    nonce: NonNegInt,
    position: NonNegInt.nullable(),
    raw_input: HexBytes,
    decoded_input: DecodedInput.nullable(),
    exchange_rate: DecString.nullable(),
    historic_exchange_rate: DecString.nullable(),
    method: z.string().nullable(),
    transaction_types: z.array(z.string()),
    transaction_tag: z.string().nullable(),
    has_error_in_internal_transactions: z.boolean().nullable(),
    authorization_list: z.array(JsonObject),
    is_pending_update: z.boolean().nullable(),
    fhe_operations_count: NonNegInt,
}
export const TransactionListItem = z.object({
    ...transactionFields,
    revert_reason: z.object({ raw: z.string() }).nullable(),
    token_transfers: z.null(),
    token_transfers_overflow: z.null(),
})
/**
 * Single view. [choice] The reference types token_transfers `TokenTransfer[]|null` and says the
 * single view holds the first 10; Blockscout preloads them for the single view, so an array is
 * expected whenever the transaction has transfers (checked in the tests); with none, [] or null.
 */
export const TransactionSingle = z.object({
    ...transactionFields,
    revert_reason: z.union([DecodedInput, z.object({ raw: z.string() })]).nullable(),
    token_transfers: z.array(TokenTransfer).max(10).nullable(),
    token_transfers_overflow: z.boolean().nullable(),
})
export type TransactionListItem = z.infer<typeof TransactionListItem>
export type TransactionSingle = z.infer<typeof TransactionSingle>

// ---------------------------------------------------------------------------------------------
// Log

export const Log = z.object({
    transaction_hash: Hash32,
    address: AddressParam,
    topics: z.array(z.string().regex(/^0x[0-9a-f]{64}$/).nullable()).length(4),
    data: HexBytes,
    index: NonNegInt,
    decoded: DecodedLog.nullable(),
    smart_contract: AddressParam.nullable(),
    block_number: NonNegInt,
    block_hash: Hash32,
    block_timestamp: IsoTimestamp.nullable(),
})
export type Log = z.infer<typeof Log>

// ---------------------------------------------------------------------------------------------
// Pages

export function page<T extends z.ZodTypeAny>(item: T) {
    return z.object({ items: z.array(item), next_page_params: z.record(z.string(), z.unknown()).nullable() })
}
export const EmptyPage = z.object({ items: z.array(z.unknown()).length(0), next_page_params: z.null() })

// ---------------------------------------------------------------------------------------------
// /stats

const GasTier = z.object({
    price: z.number(),
    time: z.number().nullable(),
    fiat_price: DecString.nullable(),
    base_fee: z.number().nullable(),
    priority_fee: z.number().nullable(),
    priority_fee_wei: IntString.nullable(),
    wei: IntString.nullable(),
})
const statsFields = {
    total_blocks: IntString,
    total_addresses: IntString,
    total_transactions: IntString,
    total_gas_used: IntString,
    transactions_today: IntString,
    gas_used_today: z.union([IntString, z.literal(0)]),
    average_block_time: z.number(),
    coin_price: DecString.nullable(),
    secondary_coin_price: DecString.nullable(),
    coin_price_change_percentage: z.number().nullable(),
    coin_image: z.string().nullable(),
    secondary_coin_image: z.string().nullable(),
    market_cap: DecString,
    tvl: DecString.nullable(),
    gas_prices_update_in: z.number(),
    gas_price_updated_at: z.string().nullable(),
    static_gas_price: z.string().nullable(),
    network_utilization_percentage: z.number(),
}
/**
 * Tiers are objects, with or without the `updated-gas-oracle: true` header. [choice] Blockscout
 * flattens them to numbers for a client without the header; the frontend reads only the objects.
 */
export const StatsWithOracle = z.object({
    ...statsFields,
    gas_prices: z.object({ slow: GasTier.nullable(), average: GasTier.nullable(), fast: GasTier.nullable() }).nullable(),
})

// ---------------------------------------------------------------------------------------------
// search

const searchAddressFields = {
    name: z.string().nullable(),
    address_hash: Checksummed,
    url: z.string(),
    is_smart_contract_verified: z.boolean().nullable(),
    ens_info: JsonObject.nullable(),
    certified: z.boolean(),
    priority: z.number(),
    reputation: Reputation,
    is_smart_contract_address: z.boolean(),
}
export const SearchBlock = z.object({
    type: z.literal('block'),
    block_number: NonNegInt,
    block_hash: Hash32,
    url: z.string(),
    timestamp: IsoTimestamp,
    block_type: z.enum(['block', 'uncle', 'reorg']),
    priority: z.number(),
})
export const SearchTransaction = z.object({
    type: z.literal('transaction'),
    transaction_hash: Hash32,
    url: z.string(),
    timestamp: IsoTimestamp.nullable(),
    priority: z.number(),
})
export const SearchAddress = z.object({ type: z.enum(['address', 'contract', 'label']), ...searchAddressFields })
export const SearchToken = z.object({
    type: z.literal('token'),
    name: z.string().nullable(),
    symbol: z.string().nullable(),
    address_hash: Checksummed,
    token_url: z.string(),
    address_url: z.string(),
    icon_url: z.string().nullable(),
    token_type: TokenType,
    is_smart_contract_verified: z.boolean(),
    exchange_rate: DecString.nullable(),
    total_supply: IntString.nullable(),
    circulating_market_cap: DecString.nullable(),
    is_verified_via_admin_panel: z.boolean().nullable(),
    certified: z.boolean(),
    priority: z.number(),
    reputation: Reputation.nullable(),
    is_smart_contract_address: z.boolean(),
})
/** Item types this chain can produce; ens_domain, metadata_tag, user_operation, blob are not. */
export const SearchItem = z.discriminatedUnion('type', [SearchBlock, SearchTransaction, SearchAddress, SearchToken])
export type SearchItem = z.infer<typeof SearchItem>
export const SearchPage = page(SearchItem)
export const SearchQuick = z.array(SearchItem)
export const CheckRedirect = z.object({
    redirect: z.boolean(),
    type: z.enum(['address', 'block', 'transaction', 'user_operation', 'blob']).nullable(),
    parameter: z.string().nullable(),
})

// ---------------------------------------------------------------------------------------------
// address, counters, tabs counters; balances; holders

export const Address = AddressParam.extend({
    creator_address_hash: Checksummed.nullable(),
    creation_transaction_hash: Hash32.nullable(),
    creation_status: z.enum(['success', 'failed', 'selfdestructed']).nullable(),
    token: Token.nullable(),
    coin_balance: IntString.nullable(),
    exchange_rate: DecString.nullable(),
    block_number_balance_updated_at: NonNegInt.nullable(),
    has_validated_blocks: z.boolean(),
    has_logs: z.boolean(),
    has_tokens: z.boolean(),
    has_token_transfers: z.boolean(),
    has_beacon_chain_withdrawals: z.boolean(),
    watchlist_address_id: Int.nullable(),
})
export type Address = z.infer<typeof Address>

export const AddressCounters = z.object({
    transactions_count: IntString,
    token_transfers_count: IntString,
    gas_usage_count: IntString,
    validations_count: IntString,
})
const Capped = z.number().int().min(0).max(51)
export const TabsCounters = z.object({
    transactions_count: Capped,
    token_transfers_count: Capped,
    token_balances_count: Capped,
    logs_count: Capped,
    withdrawals_count: Capped,
    internal_transactions_count: Capped,
    validations_count: Capped,
})
export const TokenBalance = z.object({
    token: Token,
    token_id: IntString.nullable(),
    value: IntString,
    token_instance: z.null(),
})
/** /addresses/{h}/tokens?type=… items (paginated alternative). */
export const AddressTokenItem = z.object({
    token: Token,
    token_id: IntString.nullable(),
    value: IntString,
    token_instance: TokenInstance.nullable(),
})
/** GET /addresses (top accounts) items: an AddressParam with its balance and transaction count (a string). */
export const TopAddress = AddressParam.extend({
    coin_balance: IntString.nullable(),
    transactions_count: IntString,
})
export type TopAddress = z.infer<typeof TopAddress>
/** The top-accounts page: a list page plus Blockscout's top-level fiat rate and coin supply. */
export const TopAddressesPage = page(TopAddress).extend({
    exchange_rate: DecString.nullable(),
    total_supply: IntString.nullable(),
})
export const Holder = z.object({ address: AddressParam, value: IntString, token_id: IntString.nullable() })
export const TokenCounters = z.object({ token_holders_count: IntString, transfers_count: IntString })

// ---------------------------------------------------------------------------------------------
// small objects

export const TransactionStats = z.object({
    transactions_count_24h: IntString,
    pending_transactions_count: IntString,
    transaction_fees_sum_24h: DecString,
    transaction_fees_avg_24h: DecString,
})
export const IndexingStatus = z.object({
    finished_indexing_blocks: z.boolean(),
    finished_indexing: z.boolean(),
    indexed_blocks_ratio: DecString,
    /** Always a decimal string: the blocks' ratio with a tracing node, "0" without one. */
    indexed_internal_transactions_ratio: DecString,
})
export const BackendVersion = z.object({ backend_version: z.string().nullable() })
export const TransactionsChart = z.object({
    chart_data: z.array(z.object({ date: IsoDate, transactions_count: NonNegInt })),
})
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

export const SmartContractUnverified = z.object({
    proxy_type: z.string().nullable(),
    implementations: z.array(z.object({ address_hash: Checksummed, name: z.string().nullable() })),
    conflicting_implementations: z.array(z.unknown()).nullable(),
    deployed_bytecode: HexBytes.nullable(),
    creation_bytecode: HexBytes.nullable(),
    creation_status: z.enum(['success', 'failed', 'selfdestructed']),
})
const NullableBool = z.boolean().nullable()
export const SmartContractVerified = SmartContractUnverified.extend({
    is_verified: NullableBool,
    is_changed_bytecode: NullableBool,
    is_partially_verified: NullableBool,
    is_fully_verified: NullableBool,
    is_verified_via_sourcify: NullableBool,
    is_verified_via_eth_bytecode_db: NullableBool,
    is_verified_via_verifier_alliance: NullableBool,
    is_blueprint: NullableBool,
    certified: NullableBool,
    can_be_visualized_via_sol2uml: NullableBool,
    verified_twin_address_hash: Checksummed.nullable(),
    sourcify_repo_url: z.string().nullable(),
    name: z.string(),
    compiler_version: z.string(),
    evm_version: z.string().nullable(),
    optimization_enabled: z.boolean(),
    optimization_runs: Int.nullable(),
    verified_at: IsoTimestamp,
    abi: z.array(JsonObject),
    source_code: z.string(),
    file_path: z.string().nullable(),
    additional_sources: z.array(z.object({ file_path: z.string(), source_code: z.string() })),
    compiler_settings: JsonObject,
    external_libraries: z.array(z.object({ name: z.string(), address_hash: Checksummed })),
    constructor_args: HexBytes.nullable(),
    decoded_constructor_args: z.array(z.unknown()).nullable(),
    language: z.string(),
    license_type: z.string().nullable(),
})

/**
 * GET /smart-contracts items: Blockscout's SmartContractListItem (its OpenApiSpex schema, closed
 * object). license_type is one of its enum names, `none` when the source declares none it knows.
 */
export const SmartContractListItem = z.object({
    address: AddressParam,
    compiler_version: z.string().nullable(),
    optimization_enabled: z.boolean().nullable(),
    transactions_count: NonNegInt.nullable(),
    language: z.enum(['solidity', 'vyper', 'yul', 'geas']).nullable(),
    verified_at: IsoTimestamp.nullable(),
    market_cap: DecString.nullable(),
    has_constructor_args: z.boolean().nullable(),
    coin_balance: IntString.nullable(),
    license_type: z.enum(['none', 'unlicense', 'mit', 'gnu_gpl_v2', 'gnu_gpl_v3', 'gnu_lgpl_v2_1', 'gnu_lgpl_v3', 'bsd_2_clause',
        'bsd_3_clause', 'mpl_2_0', 'osl_3_0', 'apache_2_0', 'gnu_agpl_v3', 'bsl_1_1']).nullable(),
    certified: z.boolean(),
    reputation: z.string().nullable(),
}).strict()
export type SmartContractListItem = z.infer<typeof SmartContractListItem>
export const SmartContractCounters = z.object({
    smart_contracts: IntString,
    new_smart_contracts_24h: IntString,
    verified_smart_contracts: IntString,
    new_verified_smart_contracts_24h: IntString,
}).strict()

// ---------------------------------------------------------------------------------------------
// errors

export const NotFound = z.object({ message: z.literal('Not found') })
export const UnknownAction = z.object({ message: z.literal('Unknown API v2 action') })
/**
 * 422: Blockscout gives the OpenApiSpex body `{errors:[{title, source:{pointer}, detail}]}` for
 * parameters failing its OpenAPI spec, and `{message}` for the legacy controller checks. Either is
 * accepted; whichever it is must say something.
 */
export const Unprocessable = z.union([
    z.object({ errors: z.array(z.object({ title: z.string().min(1), source: z.object({ pointer: z.string().min(1) }), detail: z.string().min(1) })).min(1) }),
    z.object({ message: z.string().min(1) }),
])

// ---------------------------------------------------------------------------------------------
// Internal transactions, balance history, state changes (Blockscout's current views; the reference
// lists the routes, not their items)

export const InternalTransaction = z.object({
    error: z.string().nullable(),
    success: z.boolean(),
    type: z.enum(['call', 'delegatecall', 'staticcall', 'callcode', 'create', 'create2', 'selfdestruct', 'reward']),
    transaction_hash: Hash32,
    transaction_index: NonNegInt,
    from: AddressParam,
    to: AddressParam.nullable(),
    created_contract: AddressParam.nullable(),
    value: IntString,
    index: NonNegInt,
    block_number: NonNegInt,
    block: NonNegInt,
    block_index: NonNegInt,
    timestamp: IsoTimestamp,
    gas_limit: IntString.nullable(),
})
export type InternalTransaction = z.infer<typeof InternalTransaction>

export const CoinBalancePoint = z.object({
    transaction_hash: Hash32.nullable(),
    block_number: NonNegInt,
    block_timestamp: IsoTimestamp,
    delta: z.string().regex(/^-?\d+$/, 'a signed integer as a decimal string'),
    value: IntString,
})
export const CoinBalanceByDay = z.object({
    items: z.array(z.object({ date: IsoDate, value: IntString })),
    days: NonNegInt,
})

const NftChange = z.object({ total: z.object({ token_id: IntString.nullable() }), direction: z.enum(['from', 'to']) })
export const StateChange = z.object({
    address: AddressParam,
    is_miner: z.boolean(),
    type: z.enum(['coin', 'token']),
    token: Token.nullable(),
    token_id: IntString.nullable(),
    balance_before: IntString.nullable(),
    balance_after: IntString.nullable(),
    change: z.union([z.string().regex(/^-?\d+$/), z.array(NftChange)]),
})
export type StateChange = z.infer<typeof StateChange>
