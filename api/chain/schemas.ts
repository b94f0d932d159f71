import { getAddress, isAddress } from 'viem'
import { z } from 'zod'
import { Answer, Operation } from '../../common/service/api-doc'

/**
 * The chain data API's answers, the one statement of their shapes (docs/decisions.md#chain-data-api-response-shapes):
 * the OpenAPI document (docs/openapi.md) is generated from them, the renderers' return types are
 * their z.input, and the tests' shape checks (test/api/chain/shapes.ts) are these with refinements.
 * The fields Blockscout's reference names for each object, as open objects since Blockscout's own
 * answers carry more. Numbers the API sends as decimal strings are strings here too.
 */

// ---------------------------------------------------------------------------------------------
// Scalars

export const Hash32 = z.string().regex(/^0x[0-9a-f]{64}$/, 'a 0x-hash of 64 lowercase hex digits')
/**
 * Addresses are sent EIP-55 checksummed. The checksum is a refinement the document cannot state
 * (it shows the pattern); the tests' shape checks hold answers to it.
 */
export const Address = z.string().regex(/^0x[0-9a-fA-F]{40}$/)
    .refine((s) => isAddress(s, { strict: false }) && getAddress(s) === s, 'an EIP-55 checksummed address')
/** Raw bytes: 0x and lowercase hex, two digits a byte. */
export const HexBytes = z.string().regex(/^0x([0-9a-f]{2})*$/, 'lowercase 0x-hex bytes')
export const IsoTimestamp = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/, 'YYYY-MM-DDTHH:MM:SS.ffffffZ')
export const IsoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'YYYY-MM-DD')
/** Wei, gas, token amounts and counters: non-negative integers as decimal strings. */
export const IntString = z.string().regex(/^\d+$/, 'a non-negative integer as a decimal string')
export const SignedIntString = z.string().regex(/^-?\d+$/, 'a signed integer as a decimal string')
/** Fiat values and ratios: decimals in plain notation as strings. */
export const DecimalString = z.string().regex(/^-?\d+(\.\d+)?$/, 'a decimal in plain notation as a string')
export const Count = z.number().int().min(0)
const JsonObject = z.record(z.string(), z.unknown())
export const TokenType = z.enum(['ERC-20', 'ERC-721', 'ERC-1155', 'ERC-404', 'ERC-7984'])
export const Reputation = z.enum(['ok', 'scam'])

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

const Implementation = z.looseObject({ address_hash: Address, name: z.string().nullable() })
const AddressTag = z.looseObject({ address_hash: z.string(), display_name: z.string(), label: z.string() })
const MetadataTag = z.looseObject({ slug: z.string(), name: z.string(), tagType: z.string(), ordinal: z.number(), meta: JsonObject.nullable() })

export const AddressParam = z.looseObject({
    hash: Address,
    is_contract: z.boolean(),
    name: z.string().nullable(),
    is_scam: z.boolean(),
    reputation: Reputation,
    proxy_type: z.string().nullable(),
    implementations: z.array(Implementation),
    is_verified: z.boolean().nullable(),
    ens_domain_name: z.string().nullable(),
    metadata: z.looseObject({ tags: z.array(MetadataTag) }).nullable(),
    private_tags: z.array(AddressTag),
    public_tags: z.array(AddressTag),
    watchlist_names: z.array(z.looseObject({ display_name: z.string(), label: z.string() })),
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
    reputation: Reputation.nullable(),
}).meta({ id: 'Token' })

/** An NFT. */
export const TokenInstance = z.looseObject({
    id: IntString,
    metadata: JsonObject.nullable(),
    owner: orNull(AddressParam),
    token: orNull(Token),
    external_app_url: z.string().nullable(),
    animation_url: z.string().nullable(),
    image_url: z.string().nullable(),
    is_unique: z.boolean().nullable(),
    thumbnails: JsonObject.nullable(),
    media_type: z.string().nullable(),
    media_url: z.string().nullable(),
}).meta({ id: 'TokenInstance' })

/** A transfer's `total` by its token type: ERC-20 and ERC-7984 ... */
export const Erc20Total = z.looseObject({ value: IntString, decimals: IntString.nullable() })
/** ... ERC-721 ... */
export const Erc721Total = z.looseObject({ token_id: IntString.nullable(), token_instance: orNull(TokenInstance) })
/** ... ERC-1155 and ERC-404. */
export const Erc1155Total = z.looseObject({ token_id: IntString.nullable(), value: IntString, decimals: IntString.nullable(), token_instance: orNull(TokenInstance) })

export const TokenTransfer = z.looseObject({
    transaction_hash: Hash32,
    from: AddressParam,
    to: AddressParam,
    total: z.union([Erc1155Total, Erc20Total, Erc721Total]).nullable()
        .describe('ERC-20: value and decimals; ERC-721: token_id and token_instance; ERC-1155: all four'),
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

/** A selector: 8 lowercase hex digits without 0x. */
const MethodId = z.string().regex(/^[0-9a-f]{8}$/, '8 lowercase hex digits without 0x')
/** A decoded argument. Its value: scalars are strings, arrays and tuples nested arrays. */
export const DecodedParameter = z.looseObject({ name: z.string(), type: z.string(), value: z.unknown() })

export const DecodedInput = z.looseObject({
    method_id: MethodId,
    method_call: z.string(),
    parameters: z.array(DecodedParameter),
}).meta({ id: 'DecodedInput' })

export const DecodedLog = z.looseObject({
    method_id: MethodId,
    method_call: z.string(),
    parameters: z.array(DecodedParameter.extend({ indexed: z.boolean() })),
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
    priority_fee: IntString.nullable(),
    transaction_fees: IntString,
    uncles_hashes: z.array(z.looseObject({ hash: Hash32 })),
    gas_target_percentage: z.number(),
    gas_used_percentage: z.number(),
    burnt_fees_percentage: z.number().nullable(),
    type: z.enum(['block', 'uncle', 'reorg']),
    internal_transactions_count: Count.nullable(),
    withdrawals_count: Count.nullable(),
    is_pending_update: z.boolean().nullable(),
}

/** Lists (null in lists: counts not preloaded; reward types as an enum) ... */
export const Block = z.looseObject({
    ...blockFields,
    rewards: z.array(z.looseObject({ reward: IntString, type: z.enum(['emission_funds', 'uncle', 'validator']) })),
}).meta({ id: 'Block' })
/**
 * ... and the single view (reward types as labels, "Miner Reward"). extra_data and state_root:
 * the frontend's Block type declares them and its block page shows them; Blockscout's view leaves
 * them out (commented TODOs). state_root is null for blocks indexed before the indexer kept it.
 */
export const BlockDetails = z.looseObject({
    ...blockFields,
    rewards: z.array(z.looseObject({ reward: IntString, type: z.string() })),
    extra_data: HexBytes.nullable(),
    state_root: Hash32.nullable(),
    // EIP-4844 (Blockscout's Ethereum chain type): null before Cancun.
    blob_transactions_count: Count,
    blob_gas_used: IntString.nullable(),
    excess_blob_gas: IntString.nullable(),
    blob_gas_price: IntString.nullable().describe('what its blob transactions paid per blob gas; null when it holds none'),
    burnt_blob_fees: IntString.nullable(),
}).meta({ id: 'BlockDetails' })

// ---------------------------------------------------------------------------------------------
// Transactions

/** An EIP-7702 authorization of a type-4 transaction, with the authority recovered from its signature (null when none is). */
export const SignedAuthorization = z.looseObject({
    address_hash: Address,
    chain_id: z.number().int().nonnegative(),
    nonce: IntString,
    r: HexBytes,
    s: HexBytes,
    v: z.number().int().nonnegative(),
    authority: Address.nullable(),
    status: z.enum(['ok', 'invalid_chain_id', 'invalid_signature', 'invalid_nonce']).nullable().describe('null: not checked (the node lacked the state before the block)'),
}).meta({ id: 'SignedAuthorization' })

const transactionFields = {
    hash: Hash32,
    result: z.string().min(1),
    status: z.enum(['ok', 'error']).nullable(),
    block_number: Count.nullable(),
    timestamp: IsoTimestamp.nullable(),
    from: AddressParam,
    to: orNull(AddressParam),
    created_contract: orNull(AddressParam),
    confirmations: Count,
    confirmation_duration: z.array(z.number()).max(2).describe('ms: [], [x] or [short, long]'),
    value: IntString,
    fee: Fee,
    gas_price: IntString.nullable(),
    type: z.number().int().nullable(),
    gas_used: IntString.nullable(),
    gas_limit: IntString,
    max_fee_per_gas: IntString.nullable(),
    max_priority_fee_per_gas: IntString.nullable(),
    base_fee_per_gas: IntString.nullable(),
    priority_fee: IntString.nullable(),
    transaction_burnt_fee: IntString.nullable(),
    nonce: Count,
    position: Count.nullable(),
    raw_input: HexBytes,
    decoded_input: orNull(DecodedInput),
    exchange_rate: DecimalString.nullable(),
    historic_exchange_rate: DecimalString.nullable(),
    method: z.string().nullable(),
    transaction_types: z.array(z.string()),
    transaction_tag: z.string().nullable(),
    has_error_in_internal_transactions: z.boolean().nullable(),
    authorization_list: z.array(SignedAuthorization).describe('EIP-7702 (type 4); [] for every other type'),
    is_pending_update: z.boolean().nullable(),
    fhe_operations_count: Count,
    // EIP-4844: sent for blob transactions (type 3) only.
    max_fee_per_blob_gas: IntString.nullable().optional(),
    blob_versioned_hashes: z.array(Hash32).optional(),
    blob_gas_used: IntString.nullable().optional(),
    blob_gas_price: IntString.nullable().optional(),
    burnt_blob_fee: IntString.nullable().optional(),
}

/** The revert data, undecoded: the only form lists send. */
const RawRevertReason = z.looseObject({ raw: z.string() })

export const Transaction = z.looseObject({
    ...transactionFields,
    revert_reason: RawRevertReason.nullable(),
    token_transfers: z.null(),
    token_transfers_overflow: z.null(),
}).meta({ id: 'Transaction' })
export const TransactionDetails = z.looseObject({
    ...transactionFields,
    revert_reason: z.union([DecodedInput, RawRevertReason]).nullable(),
    token_transfers: z.array(TokenTransfer).max(10).nullable().describe('The first 10'),
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
    topics: z.array(Hash32.nullable()).length(4),
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

const NftChange = z.looseObject({ total: z.looseObject({ token_id: IntString.nullable() }), direction: z.enum(['from', 'to']) })
export const StateChange = z.looseObject({
    address: AddressParam,
    is_miner: z.boolean(),
    type: z.enum(['coin', 'token']),
    token: orNull(Token),
    token_id: IntString.nullable(),
    balance_before: IntString.nullable(),
    balance_after: IntString.nullable(),
    change: z.union([SignedIntString, z.array(NftChange)]).describe('A coin or fungible token: the difference; an ERC-721: the tokens that came and went'),
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

const Capped = Count.max(51)
/** Tab counts, each capped at 51 ("50+"). */
export const AddressTabsCounters = z.looseObject({
    transactions_count: Capped,
    token_transfers_count: Capped,
    token_balances_count: Capped,
    logs_count: Capped,
    withdrawals_count: Capped,
    internal_transactions_count: Capped,
    validations_count: Capped,
}).meta({ id: 'AddressTabsCounters' })

export const TokenBalance = z.looseObject({
    token: Token,
    token_id: IntString.nullable(),
    value: IntString,
    token_instance: orNull(TokenInstance).describe('Always null in /token-balances'),
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
export const TokenInstanceTransfersCount = z.looseObject({ transfers_count: Count }).meta({ id: 'TokenInstanceTransfersCount' })
/** An NFT an address holds: the instance, its token's standard, and how much of it the address holds (1 for an ERC-721). */
export const AddressNft = TokenInstance.extend({ token: Token, token_type: TokenType, value: IntString }).meta({ id: 'AddressNft' })
/** A collection an address holds some of: its balance in it (ERC-721: tokens; ERC-1155: the sum of every id's amount) and its first instances. */
export const AddressNftCollection = z.looseObject({
    token: Token,
    amount: IntString,
    token_instances: z.array(TokenInstance.omit({ token: true }).extend({ token_type: TokenType, value: IntString })),
}).meta({ id: 'AddressNftCollection' })

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

/** What every contract shows: its bytecode (the whole answer for an unverified contract). */
export const SmartContractBytecode = z.looseObject({
    proxy_type: z.string().nullable(),
    implementations: z.array(Implementation),
    conflicting_implementations: z.array(z.unknown()).nullable(),
    deployed_bytecode: HexBytes.nullable(),
    creation_bytecode: HexBytes.nullable(),
    creation_status: z.enum(['success', 'failed', 'selfdestructed']),
})

/** What a verified contract (or a verified bytecode twin) adds. */
const verificationFields = {
    is_verified: z.boolean().nullable(),
    is_changed_bytecode: z.boolean().nullable(),
    is_partially_verified: z.boolean().nullable(),
    is_fully_verified: z.boolean().nullable(),
    is_verified_via_sourcify: z.boolean().nullable(),
    is_verified_via_eth_bytecode_db: z.boolean().nullable(),
    is_verified_via_verifier_alliance: z.boolean().nullable(),
    is_blueprint: z.boolean().nullable(),
    certified: z.boolean().nullable(),
    can_be_visualized_via_sol2uml: z.boolean().nullable(),
    verified_twin_address_hash: Address.nullable(),
    sourcify_repo_url: z.string().nullable(),
    name: z.string(),
    compiler_version: z.string().nullable(),
    evm_version: z.string().nullable(),
    optimization_enabled: z.boolean().nullable(),
    optimization_runs: z.number().int().nullable(),
    verified_at: IsoTimestamp.nullable(),
    abi: z.array(JsonObject).nullable(),
    source_code: z.string(),
    file_path: z.string().nullable(),
    additional_sources: z.array(z.looseObject({ file_path: z.string(), source_code: z.string() })),
    compiler_settings: JsonObject,
    external_libraries: z.array(z.looseObject({ name: z.string(), address_hash: Address })),
    constructor_args: HexBytes.nullable(),
    decoded_constructor_args: z.array(z.unknown()).nullable().describe('[value, abi input] pairs'),
    language: z.string(),
    license_type: z.string().nullable(),
}

/** A verified contract's answer. */
export const SmartContractVerified = SmartContractBytecode.extend(verificationFields)

/** A contract: the bytecode fields always, the verification fields when its source is verified. */
export const SmartContract = SmartContractBytecode.extend(z.object(verificationFields).partial().shape).meta({ id: 'SmartContract' })

// ---------------------------------------------------------------------------------------------
// Search

export const SearchAddress = z.looseObject({
    type: z.enum(['address', 'contract']),
    name: z.string().nullable(),
    address_hash: Address,
    url: z.string(),
    is_smart_contract_verified: z.boolean().nullable(),
    ens_info: JsonObject.nullable(),
    certified: z.boolean(),
    priority: z.number(),
    reputation: Reputation,
    is_smart_contract_address: z.boolean(),
})
export const SearchToken = z.looseObject({
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
    is_verified_via_admin_panel: z.boolean().nullable(),
    certified: z.boolean(),
    priority: z.number(),
    reputation: Reputation.nullable(),
    is_smart_contract_address: z.boolean(),
})
export const SearchBlock = z.looseObject({
    type: z.literal('block'),
    block_number: Count,
    block_hash: Hash32,
    url: z.string(),
    timestamp: IsoTimestamp.nullable(),
    block_type: z.enum(['block', 'uncle', 'reorg']),
    priority: z.number(),
})
export const SearchTransaction = z.looseObject({
    type: z.literal('transaction'),
    transaction_hash: Hash32,
    url: z.string(),
    timestamp: IsoTimestamp.nullable(),
    priority: z.number(),
})
export const SearchItem = z.union([SearchBlock, SearchTransaction, SearchAddress, SearchToken]).meta({ id: 'SearchResult' })

export const SearchRedirect = z.looseObject({
    redirect: z.boolean(),
    type: z.enum(['address', 'block', 'transaction']).nullable(),
    parameter: z.string().nullable(),
}).meta({ id: 'SearchRedirect' })

// ---------------------------------------------------------------------------------------------
// Stats, main page, config

export const GasPriceTier = z.looseObject({
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
    chart_data: z.array(z.looseObject({ date: IsoDate, transactions_count: Count })),
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
// Advanced filter

/** One item of the advanced filter: a transaction, a token transfer or an internal transaction (which of the three indexes is set). */
export const AdvancedFilterItem = z.looseObject({
    hash: Hash32,
    type: z.enum(['coin_transfer', 'contract_interaction', 'contract_creation', 'ERC-20', 'ERC-721', 'ERC-1155', 'ERC-404', 'ERC-7984']),
    status: z.enum(['ok', 'error']).describe("the transaction's status"),
    method: z.string().nullable(),
    from: orNull(AddressParam),
    to: orNull(AddressParam),
    created_contract: orNull(AddressParam),
    value: IntString.nullable().describe('wei moved; null for a token transfer'),
    total: z.union([Erc1155Total, Erc20Total, Erc721Total]).nullable().describe("a token transfer's amount or token id; null otherwise"),
    token: orNull(Token),
    timestamp: IsoTimestamp,
    block_number: Count,
    transaction_index: Count,
    internal_transaction_index: Count.nullable(),
    token_transfer_index: Count.nullable(),
    token_transfer_batch_index: Count.nullable().describe('position in an ERC-1155 TransferBatch; null for every other transfer'),
    fee: IntString,
}).meta({ id: 'AdvancedFilterItem' })

export const AdvancedFilterMethod = z.looseObject({
    method_id: z.string().regex(/^0x[0-9a-f]{8}$/, '0x and 8 lowercase hex digits'),
    name: z.string(),
}).meta({ id: 'AdvancedFilterMethod' })

export const AdvancedFilterPage = z.object({
    items: z.array(AdvancedFilterItem),
    search_params: z.object({
        methods: z.record(z.string(), z.string()).describe('the names of the methods filtered by, by selector'),
        tokens: z.record(z.string(), Token).describe('the tokens filtered by (included or excluded), by lowercase address'),
    }),
    next_page_params: JsonObject.nullable(),
}).meta({ id: 'AdvancedFilterPage' })

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
    /** What a route answers 400 `{"message": "Invalid parameter(s)"}` for, as Blockscout does for a malformed token id. */
    badRequest?: string
}

/**
 * The operation of a route: its success answer, 404 if it looks something up, 422 if it takes
 * parameters, and 503 if it reads the database (its statements are cancelled at
 * CHAIN_API_STATEMENT_TIMEOUT_MS).
 */
export function chainOperation(tag: string, route: ChainRoute, description: string, schema: z.ZodType): Operation {
    const { notFound, reads, badRequest, ...op } = route
    const responses: Record<number, Answer | string> = { 200: { description, schema } }
    if (badRequest) responses[400] = badRequest
    if (notFound) responses[404] = `No such ${notFound}`
    if (route.params || route.query) responses[422] = { description: 'A parameter failed validation', schema: ChainValidationError }
    if (reads !== false) responses[503] = 'A query ran past CHAIN_API_STATEMENT_TIMEOUT_MS and was cancelled: retry later or narrow the request'
    return { ...op, tags: [tag], responses }
}
