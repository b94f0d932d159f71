import { z } from 'zod'
import { Answer, Operation } from '../../common/service/api-doc'

/**
 * The chain data API's answers as its OpenAPI document states them (docs/openapi.md): the fields
 * Blockscout's reference names for each object, as open objects since Blockscout's own answers
 * carry more. Numbers the API sends as decimal strings are strings here too.
 */

// ---------------------------------------------------------------------------------------------
// Scalars

const Hash32 = z.string().regex(/^0x[0-9a-f]{64}$/)
const Address = z.string().regex(/^0x[0-9a-fA-F]{40}$/)
const HexBytes = z.string().regex(/^0x[0-9a-f]*$/)
const IsoTimestamp = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/)
const IsoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/)
/** Wei, gas, token amounts and counters: non-negative integers as decimal strings. */
const IntString = z.string().regex(/^\d+$/)
const SignedIntString = z.string().regex(/^-?\d+$/)
const DecimalString = z.string().regex(/^-?\d+(\.\d+)?$/)
const Count = z.number().int().min(0)
const JsonObject = z.record(z.string(), z.unknown())
const TokenType = z.enum(['ERC-20', 'ERC-721', 'ERC-1155', 'ERC-404', 'ERC-7984'])

/**
 * A named schema or null. Not `.nullable()`: zod-to-openapi drops the null from a nullable
 * reference to a component, and the document would refuse the nulls the API sends.
 */
function orNull<T extends z.ZodType>(schema: T) {
    return z.union([schema, z.null()])
}

// ---------------------------------------------------------------------------------------------
// Errors

/** 422: one entry per parameter and reason, JSON:API style, as Blockscout's OpenApiSpex validation answers. */
export const ChainValidationError = z.object({
    errors: z.array(z.object({ title: z.string(), source: z.object({ pointer: z.string() }), detail: z.string() })),
}).meta({ id: 'ChainValidationError' })

/** Every other error of /api/v2: 404 `Not found`, 503 on a cancelled statement. */
export const ChainError = z.object({ message: z.string() }).meta({ id: 'ChainError' })

// ---------------------------------------------------------------------------------------------
// Shared pieces

export const AddressParam = z.looseObject({
    hash: Address,
    is_contract: z.boolean(),
    name: z.string().nullable(),
    is_scam: z.boolean(),
    reputation: z.string(),
    proxy_type: z.string().nullable(),
    implementations: z.array(z.looseObject({ address_hash: Address, name: z.string().nullable() })),
    is_verified: z.boolean().nullable(),
    ens_domain_name: z.string().nullable(),
    metadata: JsonObject.nullable(),
    private_tags: z.array(JsonObject),
    public_tags: z.array(JsonObject),
    watchlist_names: z.array(JsonObject),
}).meta({ id: 'AddressParam', description: 'How an address is shown inside another object (from, to, miner, ...).' })

export const Token = z.looseObject({
    address_hash: Address,
    symbol: z.string().nullable(),
    name: z.string().nullable(),
    decimals: IntString.nullable(),
    type: TokenType,
    holders_count: IntString.nullable(),
    exchange_rate: DecimalString.nullable(),
    volume_24h: DecimalString.nullable(),
    total_supply: IntString.nullable(),
    icon_url: z.string().nullable(),
    circulating_market_cap: DecimalString.nullable(),
    circulating_supply: DecimalString.nullable(),
    reputation: z.string().nullable(),
}).meta({ id: 'Token' })

export const TokenTransfer = z.looseObject({
    transaction_hash: Hash32,
    from: AddressParam,
    to: AddressParam,
    total: z.looseObject({
        value: IntString.optional(),
        decimals: IntString.nullable().optional(),
        token_id: IntString.nullable().optional(),
        token_instance: JsonObject.nullable().optional(),
    }).nullable().describe('ERC-20: value and decimals; ERC-721: token_id and token_instance; ERC-1155: all four'),
    token: orNull(Token),
    type: z.enum(['token_transfer', 'token_minting', 'token_burning', 'token_spawning']),
    timestamp: IsoTimestamp.nullable(),
    method: z.string().nullable(),
    block_hash: Hash32,
    block_number: Count,
    log_index: Count,
    token_type: TokenType,
}).meta({ id: 'TokenTransfer' })

export const Fee = z.looseObject({ type: z.enum(['actual', 'maximum']), value: IntString.nullable() }).meta({ id: 'Fee' })

export const DecodedInput = z.looseObject({
    method_id: z.string(),
    method_call: z.string(),
    parameters: z.array(z.looseObject({ name: z.string(), type: z.string(), value: z.unknown() })),
}).meta({ id: 'DecodedInput' })

const DecodedLog = z.looseObject({
    method_id: z.string(),
    method_call: z.string(),
    parameters: z.array(z.looseObject({ name: z.string(), type: z.string(), value: z.unknown(), indexed: z.boolean() })),
}).meta({ id: 'DecodedLog' })

/** Blockscout's list answer: a page and the parameters of the next one (null on the last page). */
export function pageOf<T extends z.ZodType>(item: T) {
    return z.object({ items: z.array(item), next_page_params: JsonObject.nullable() })
}

/** A tab a Blockscout frontend may open for data this chain or indexer does not have: always empty. */
export const EmptyPage = z.object({ items: z.array(z.unknown()).max(0), next_page_params: z.null() }).meta({ id: 'EmptyPage' })

// ---------------------------------------------------------------------------------------------
// Blocks

const blockFields = {
    height: Count,
    timestamp: IsoTimestamp,
    transactions_count: Count,
    miner: AddressParam,
    size: Count.nullable(),
    hash: Hash32,
    parent_hash: Hash32,
    difficulty: IntString.nullable(),
    total_difficulty: IntString.nullable(),
    gas_used: IntString,
    gas_limit: IntString,
    nonce: HexBytes,
    base_fee_per_gas: IntString.nullable(),
    burnt_fees: IntString.nullable(),
    priority_fee: SignedIntString.nullable(),
    transaction_fees: IntString,
    uncles_hashes: z.array(z.looseObject({ hash: Hash32 })),
    rewards: z.array(JsonObject),
    gas_target_percentage: z.number(),
    gas_used_percentage: z.number(),
    burnt_fees_percentage: z.number().nullable(),
    type: z.enum(['block', 'uncle', 'reorg']),
    internal_transactions_count: Count.nullable(),
    withdrawals_count: Count.nullable(),
    is_pending_update: z.boolean().nullable(),
}

export const Block = z.looseObject(blockFields).meta({ id: 'Block' })
export const BlockDetails = z.looseObject({ ...blockFields, extra_data: HexBytes.nullable(), state_root: Hash32.nullable() })
    .meta({ id: 'BlockDetails' })

// ---------------------------------------------------------------------------------------------
// Transactions

const transactionFields = {
    hash: Hash32,
    result: z.string(),
    status: z.enum(['ok', 'error']).nullable(),
    block_number: Count.nullable(),
    timestamp: IsoTimestamp.nullable(),
    from: AddressParam,
    to: orNull(AddressParam),
    created_contract: orNull(AddressParam),
    confirmations: Count,
    confirmation_duration: z.array(z.number()),
    value: IntString,
    fee: Fee,
    gas_price: IntString.nullable(),
    type: z.number().int().nullable(),
    gas_used: IntString.nullable(),
    gas_limit: IntString,
    max_fee_per_gas: IntString.nullable(),
    max_priority_fee_per_gas: IntString.nullable(),
    base_fee_per_gas: IntString.nullable(),
    priority_fee: SignedIntString.nullable(),
    transaction_burnt_fee: IntString.nullable(),
    nonce: Count,
    position: Count.nullable(),
    revert_reason: JsonObject.nullable(),
    raw_input: HexBytes,
    decoded_input: orNull(DecodedInput),
    exchange_rate: DecimalString.nullable(),
    historic_exchange_rate: DecimalString.nullable(),
    method: z.string().nullable(),
    transaction_types: z.array(z.string()),
    transaction_tag: z.string().nullable(),
    has_error_in_internal_transactions: z.boolean().nullable(),
    authorization_list: z.array(JsonObject),
    is_pending_update: z.boolean().nullable(),
}

export const Transaction = z.looseObject({ ...transactionFields, token_transfers: z.null(), token_transfers_overflow: z.null() })
    .meta({ id: 'Transaction' })
export const TransactionDetails = z.looseObject({
    ...transactionFields,
    token_transfers: z.array(TokenTransfer).nullable().describe('The first 10'),
    token_transfers_overflow: z.boolean().nullable(),
}).meta({ id: 'TransactionDetails' })

export const TransactionStats = z.looseObject({
    transactions_count_24h: IntString,
    pending_transactions_count: IntString,
    transaction_fees_sum_24h: DecimalString,
    transaction_fees_avg_24h: DecimalString,
}).meta({ id: 'TransactionStats' })

export const Log = z.looseObject({
    transaction_hash: Hash32,
    address: AddressParam,
    topics: z.array(Hash32.nullable()),
    data: HexBytes,
    index: Count,
    decoded: orNull(DecodedLog),
    smart_contract: orNull(AddressParam),
    block_number: Count,
    block_hash: Hash32,
    block_timestamp: IsoTimestamp.nullable(),
}).meta({ id: 'Log' })

export const InternalTransaction = z.looseObject({
    error: z.string().nullable(),
    success: z.boolean(),
    type: z.string(),
    transaction_hash: Hash32,
    transaction_index: Count,
    from: AddressParam,
    to: orNull(AddressParam),
    created_contract: orNull(AddressParam),
    value: IntString.nullable(),
    index: Count,
    block_number: Count,
    block: Count,
    block_index: Count,
    timestamp: IsoTimestamp.nullable(),
    gas_limit: IntString.nullable(),
}).meta({ id: 'InternalTransaction' })

/** One frame of `trace_transaction` (Parity format). */
export const RawTraceFrame = z.looseObject({
    type: z.enum(['call', 'create', 'suicide']),
    subtraces: Count,
    traceAddress: z.array(Count),
    transactionHash: Hash32,
    blockNumber: Count,
    action: JsonObject,
    result: JsonObject.optional(),
    error: z.string().optional(),
}).meta({ id: 'RawTraceFrame' })

export const StateChange = z.looseObject({
    address: AddressParam,
    is_miner: z.boolean(),
    type: z.enum(['coin', 'token']),
    token: orNull(Token),
    token_id: IntString.nullable(),
    balance_before: SignedIntString.nullable(),
    balance_after: SignedIntString.nullable(),
    change: z.union([SignedIntString, z.array(JsonObject)]),
}).meta({ id: 'StateChange' })

// ---------------------------------------------------------------------------------------------
// Addresses

export const AddressDetails = z.looseObject({
    ...AddressParam.shape,
    creator_address_hash: Address.nullable(),
    creation_transaction_hash: Hash32.nullable(),
    creation_status: z.enum(['success', 'failed', 'selfdestructed']).nullable(),
    token: orNull(Token),
    coin_balance: IntString.nullable(),
    exchange_rate: DecimalString.nullable(),
    block_number_balance_updated_at: Count.nullable(),
    has_validated_blocks: z.boolean(),
    has_logs: z.boolean(),
    has_tokens: z.boolean(),
    has_token_transfers: z.boolean(),
    has_beacon_chain_withdrawals: z.boolean(),
    watchlist_address_id: z.number().int().nullable(),
}).meta({ id: 'Address' })

export const TopAddressesPage = z.object({
    items: z.array(z.looseObject({ ...AddressParam.shape, coin_balance: IntString.nullable(), transactions_count: IntString })),
    next_page_params: JsonObject.nullable(),
    exchange_rate: DecimalString.nullable(),
    total_supply: IntString.nullable(),
}).meta({ id: 'TopAddressesPage' })

export const AddressCounters = z.looseObject({
    transactions_count: IntString,
    token_transfers_count: IntString,
    gas_usage_count: IntString,
    validations_count: IntString,
}).meta({ id: 'AddressCounters' })

/** Tab counts, each capped at 51 ("50+"). */
export const AddressTabsCounters = z.looseObject({
    transactions_count: Count,
    token_transfers_count: Count,
    token_balances_count: Count,
    logs_count: Count,
    withdrawals_count: Count,
    internal_transactions_count: Count,
    validations_count: Count,
}).meta({ id: 'AddressTabsCounters' })

export const TokenBalance = z.looseObject({
    token: Token,
    token_id: IntString.nullable(),
    value: IntString,
    token_instance: JsonObject.nullable(),
}).meta({ id: 'TokenBalance' })

export const CoinBalancePoint = z.looseObject({
    transaction_hash: Hash32.nullable(),
    block_number: Count,
    block_timestamp: IsoTimestamp.nullable(),
    delta: SignedIntString.nullable(),
    value: IntString.nullable(),
}).meta({ id: 'CoinBalancePoint' })

export const CoinBalanceByDay = z.looseObject({
    items: z.array(z.looseObject({ date: IsoDate, value: IntString })),
    days: Count,
}).meta({ id: 'CoinBalanceByDay' })

// ---------------------------------------------------------------------------------------------
// Tokens

export const TokenCounters = z.looseObject({ token_holders_count: IntString, transfers_count: IntString }).meta({ id: 'TokenCounters' })
export const TokenHolder = z.looseObject({ address: AddressParam, value: IntString, token_id: IntString.nullable() }).meta({ id: 'TokenHolder' })

// ---------------------------------------------------------------------------------------------
// Smart contracts

export const SmartContractListItem = z.looseObject({
    address: AddressParam,
    compiler_version: z.string().nullable(),
    optimization_enabled: z.boolean().nullable(),
    transactions_count: Count.nullable(),
    language: z.string().nullable(),
    verified_at: IsoTimestamp.nullable(),
    market_cap: DecimalString.nullable(),
    has_constructor_args: z.boolean().nullable(),
    coin_balance: IntString.nullable(),
    license_type: z.string().nullable(),
    certified: z.boolean(),
    reputation: z.string().nullable(),
}).meta({ id: 'SmartContractListItem' })

export const SmartContractCounters = z.looseObject({
    smart_contracts: IntString,
    new_smart_contracts_24h: IntString,
    verified_smart_contracts: IntString,
    new_verified_smart_contracts_24h: IntString,
}).meta({ id: 'SmartContractCounters' })

/** A contract: the bytecode fields always, the verification fields when its source is verified. */
export const SmartContract = z.looseObject({
    proxy_type: z.string().nullable(),
    implementations: z.array(JsonObject),
    conflicting_implementations: z.array(z.unknown()).nullable(),
    deployed_bytecode: HexBytes.nullable(),
    creation_bytecode: HexBytes.nullable(),
    creation_status: z.enum(['success', 'failed', 'selfdestructed']),
    is_verified: z.boolean().nullable().optional(),
    name: z.string().optional(),
    compiler_version: z.string().nullable().optional(),
    evm_version: z.string().nullable().optional(),
    optimization_enabled: z.boolean().nullable().optional(),
    optimization_runs: z.number().int().nullable().optional(),
    verified_at: IsoTimestamp.nullable().optional(),
    abi: z.array(JsonObject).nullable().optional(),
    source_code: z.string().optional(),
    file_path: z.string().nullable().optional(),
    additional_sources: z.array(z.looseObject({ file_path: z.string(), source_code: z.string() })).optional(),
    compiler_settings: JsonObject.optional(),
    external_libraries: z.array(JsonObject).optional(),
    constructor_args: z.string().nullable().optional(),
    decoded_constructor_args: z.array(z.unknown()).nullable().optional(),
    language: z.string().optional(),
    license_type: z.string().nullable().optional(),
}).meta({ id: 'SmartContract' })

// ---------------------------------------------------------------------------------------------
// Search

const searchAddress = z.looseObject({
    type: z.enum(['address', 'contract']),
    name: z.string().nullable(),
    address_hash: Address,
    url: z.string(),
    is_smart_contract_verified: z.boolean().nullable(),
    ens_info: JsonObject.nullable(),
    certified: z.boolean(),
    priority: z.number(),
    reputation: z.string(),
    is_smart_contract_address: z.boolean(),
})
const searchToken = z.looseObject({
    type: z.literal('token'),
    name: z.string().nullable(),
    symbol: z.string().nullable(),
    address_hash: Address,
    token_url: z.string(),
    address_url: z.string(),
    icon_url: z.string().nullable(),
    token_type: TokenType,
    is_smart_contract_verified: z.boolean(),
    exchange_rate: DecimalString.nullable(),
    total_supply: IntString.nullable(),
    circulating_market_cap: DecimalString.nullable(),
    certified: z.boolean(),
    priority: z.number(),
    reputation: z.string().nullable(),
    is_smart_contract_address: z.boolean(),
})
const searchBlock = z.looseObject({
    type: z.literal('block'),
    block_number: Count,
    block_hash: Hash32,
    url: z.string(),
    timestamp: IsoTimestamp.nullable(),
    block_type: z.enum(['block', 'uncle', 'reorg']),
    priority: z.number(),
})
const searchTransaction = z.looseObject({
    type: z.literal('transaction'),
    transaction_hash: Hash32,
    url: z.string(),
    timestamp: IsoTimestamp.nullable(),
    priority: z.number(),
})
export const SearchItem = z.union([searchBlock, searchTransaction, searchAddress, searchToken]).meta({ id: 'SearchResult' })

export const SearchRedirect = z.looseObject({
    redirect: z.boolean(),
    type: z.enum(['address', 'block', 'transaction']).nullable(),
    parameter: z.string().nullable(),
}).meta({ id: 'SearchRedirect' })

// ---------------------------------------------------------------------------------------------
// Stats, main page, config

const GasPriceTier = z.looseObject({
    price: z.number(),
    time: z.number().nullable(),
    fiat_price: DecimalString.nullable(),
    base_fee: z.number().nullable(),
    priority_fee: z.number().nullable(),
    priority_fee_wei: IntString.nullable(),
    wei: IntString.nullable(),
}).meta({ id: 'GasPriceTier' })

export const Stats = z.looseObject({
    total_blocks: IntString,
    total_addresses: IntString,
    total_transactions: IntString,
    total_gas_used: IntString,
    transactions_today: IntString,
    gas_used_today: IntString,
    average_block_time: z.number(),
    coin_price: DecimalString.nullable(),
    secondary_coin_price: DecimalString.nullable(),
    coin_price_change_percentage: z.number().nullable(),
    coin_image: z.string().nullable(),
    secondary_coin_image: z.string().nullable(),
    market_cap: DecimalString,
    tvl: DecimalString.nullable(),
    gas_prices: z.looseObject({ slow: orNull(GasPriceTier), average: orNull(GasPriceTier), fast: orNull(GasPriceTier) }).nullable(),
    gas_prices_update_in: z.number(),
    gas_price_updated_at: z.string().nullable(),
    static_gas_price: z.string().nullable(),
    network_utilization_percentage: z.number(),
}).meta({ id: 'Stats' })

export const TransactionsChart = z.looseObject({
    chart_data: z.array(z.looseObject({ date: IsoDate, transactions_count: z.union([Count, IntString]) })),
}).meta({ id: 'TransactionsChart' })

export const MarketChart = z.looseObject({ chart_data: z.array(JsonObject), available_supply: DecimalString }).meta({ id: 'MarketChart' })

export const IndexingStatus = z.looseObject({
    finished_indexing_blocks: z.boolean(),
    finished_indexing: z.boolean(),
    indexed_blocks_ratio: DecimalString,
    indexed_internal_transactions_ratio: DecimalString,
}).meta({ id: 'IndexingStatus' })

export const BackendVersion = z.looseObject({ backend_version: z.string().nullable() }).meta({ id: 'BackendVersion' })

// ---------------------------------------------------------------------------------------------
// Operations

/** A GET route of /api/v2, for its OpenAPI operation. */
export interface ChainRoute {
    operationId: string
    summary: string
    description?: string
    params?: z.ZodObject
    query?: z.ZodObject
    /** What the route looks up, for a route that answers 404 `{"message": "Not found"}` without it. */
    notFound?: string
    /** false for a route that answers without reading the database, so never 503. */
    reads?: boolean
}

/**
 * The operation of a route: its success answer, 404 if it looks something up, 422 if it takes
 * parameters, and 503 if it reads the database (its statements are cancelled at
 * CHAIN_API_STATEMENT_TIMEOUT_MS).
 */
export function chainOperation(tag: string, route: ChainRoute, description: string, schema: z.ZodType): Operation {
    const { notFound, reads, ...op } = route
    const responses: Record<number, Answer | string> = { 200: { description, schema } }
    if (notFound) responses[404] = `No such ${notFound}`
    if (route.params || route.query) responses[422] = { description: 'A parameter failed validation', schema: ChainValidationError }
    if (reads !== false) responses[503] = 'A query ran past CHAIN_API_STATEMENT_TIMEOUT_MS and was cancelled: retry later or narrow the request'
    return { ...op, tags: [tag], responses }
}
