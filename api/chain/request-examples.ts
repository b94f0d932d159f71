import { RequestExample } from '../../common/service/api-doc'

/**
 * One working request per chain data API operation that takes input (/api/v2, Blockscout REST v2
 * compatible, and the Etherscan-style /api), by operationId, for the OpenAPI document of the
 * explorer port (ApiDoc parses each with its route's schemas at registration). Addresses are
 * checksummed, as this API writes them (any case is accepted). Pagination keys are those of the
 * route's next_page_params, shown where they help: a client passes them back as they came.
 *
 * The multipart standard-input verification shows its path only: the document cannot give an
 * example of its `files[0]` file part (the flattened-code and Etherscan-form verifications show a body).
 */

const ACCOUNT = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
const RECIPIENT = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const TOKEN = '0x5FbDB2315678afecb367f032d93F642f64180aa3'
const CONTRACT = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512'
const TRANSACTION = '0x4e3a3754410177e6937ef1f84bba68ea139e8d1a2258c5f85db9f1cd715a1bdd'
const BLOCK = '1204'
const BLOCK_HASH = '0x8f5bab218b6bb34476f51ca588e9f4553a3a7ce5e13a66c660a5283e97e9a85a'
/** keccak256("Transfer(address,address,uint256)"), the ERC-20 and ERC-721 Transfer event. */
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'
const COMPILER = 'v0.8.24+commit.e11b9ed9'
const SOURCE = '// SPDX-License-Identifier: MIT\npragma solidity ^0.8.24;\n\ncontract Counter {\n    uint256 public count;\n\n    function increment() external {\n        count += 1;\n    }\n}\n'

const address = { hash: ACCOUNT }
const token = { hash: TOKEN }
const transaction = { hash: TRANSACTION }
const block = { block: BLOCK }

export const CHAIN_EXAMPLES: Record<string, RequestExample> = {
    // Blocks
    listBlocks: { query: { type: 'block' } },
    getBlock: { params: block },
    listBlockTransactions: { params: block, query: { type: 'token_transfer,contract_call' } },
    listBlockWithdrawals: { params: { block: BLOCK_HASH } },
    listBlockInternalTransactions: { params: block },

    // Transactions
    listTransactions: { query: { filter: 'validated', block_number: BLOCK, index: '3', items_count: '50' } },
    getTransaction: { params: transaction },
    listTransactionLogs: { params: transaction },
    listTransactionTokenTransfers: { params: transaction, query: { type: 'ERC-20' } },
    listTransactionInternalTransactions: { params: transaction },
    getTransactionRawTrace: { params: transaction },
    listTransactionStateChanges: { params: transaction },

    // Internal transactions
    listInternalTransactions: { query: { block_number: BLOCK, transaction_index: '2', index: '1', items_count: '50' } },

    // Addresses
    listTopAddresses: { query: { fetched_coin_balance: '1000000000000000000', hash: RECIPIENT, transactions_count: '12', items_count: '50' } },
    getAddress: { params: address },
    getAddressCounters: { params: address },
    getAddressTabCounters: { params: address },
    listAddressTransactions: { params: address, query: { filter: 'from', sort: 'value', order: 'desc' } },
    listAddressTokenTransfers: { params: address, query: { type: 'ERC-20', filter: 'to', token: TOKEN } },
    listAddressInternalTransactions: { params: address, query: { filter: 'to' } },
    listAddressTokenBalances: { params: address },
    listAddressTokens: { params: address, query: { type: 'ERC-20' } },
    listAddressLogs: { params: { hash: TOKEN }, query: { topic: TRANSFER_TOPIC } },
    listAddressBlocksValidated: { params: address, query: { block_number: BLOCK, items_count: '50' } },
    listAddressCoinBalanceHistory: { params: address },
    listAddressCoinBalanceByDay: { params: address },
    listAddressNfts: { params: address, query: { type: 'ERC-721,ERC-1155' } },
    listAddressNftCollections: { params: address, query: { type: 'ERC-721,ERC-1155' } },
    listAddressWithdrawals: { params: address },

    // CSV exports (/api/v1), as Blockscout's frontend asks them
    exportAddressTransactionsCsv: { query: { address_id: ACCOUNT, from_period: '2026-01-01T00:00:00.000Z', to_period: '2026-01-31T23:59:59.999Z' } },
    exportAddressInternalTransactionsCsv: { query: { address_id: ACCOUNT, from_period: '2026-01-01', to_period: '2026-01-31', filter_type: 'address', filter_value: 'to' } },
    exportAddressTokenTransfersCsv: { query: { address_id: ACCOUNT, from_period: '2026-01-01', to_period: '2026-01-31', filter_type: 'address', filter_value: 'from' } },
    exportAddressLogsCsv: { query: { address_id: TOKEN, from_period: '2026-01-01', to_period: '2026-01-31', filter_type: 'topic', filter_value: TRANSFER_TOPIC } },
    // and at /api/v2/addresses/{hash}/<kind>/csv, as its current frontend asks them
    exportAddressTransactionsCsvByPath: { params: address, query: { address_id: ACCOUNT, from_period: '2026-01-01T00:00:00.000Z', to_period: '2026-01-31T23:59:59.999Z' } },
    exportAddressInternalTransactionsCsvByPath: { params: address, query: { from_period: '2026-01-01', to_period: '2026-01-31', filter_type: 'address', filter_value: 'to' } },
    exportAddressTokenTransfersCsvByPath: { params: address, query: { from_period: '2026-01-01', to_period: '2026-01-31', filter_type: 'address', filter_value: 'from' } },
    exportAddressLogsCsvByPath: { params: { hash: TOKEN }, query: { from_period: '2026-01-01', to_period: '2026-01-31', filter_type: 'topic', filter_value: TRANSFER_TOPIC } },

    // Tokens and token transfers
    listTokens: { query: { q: 'USD', type: 'ERC-20', sort: 'holders_count', order: 'desc' } },
    getToken: { params: token },
    getTokenCounters: { params: token },
    listTokenHolders: { params: token },
    exportTokenHoldersCsv: { params: token },
    listTokenTransfersOfToken: { params: token },
    listTokenInstances: { params: { hash: CONTRACT }, query: { holder_address_hash: ACCOUNT } },
    getTokenInstance: { params: { hash: CONTRACT, id: '1' } },
    listTokenInstanceTransfers: { params: { hash: CONTRACT, id: '1' } },
    listTokenInstanceHolders: { params: { hash: CONTRACT, id: '1' } },
    getTokenInstanceTransfersCount: { params: { hash: CONTRACT, id: '1' } },
    listTokenTransfers: { query: { type: 'ERC-20,ERC-721' } },

    // Advanced filter
    listAdvancedFilter: {
        query: {
            transaction_types: 'coin_transfer,ERC-20', methods: '0xa9059cbb', age_from: '2026-11-01T00:00:00Z', age_to: '2026-11-30T00:00:00Z',
            from_address_hashes_to_include: ACCOUNT, to_address_hashes_to_exclude: RECIPIENT, address_relation: 'and',
            amount_from: '0.5', amount_to: '1000', token_contract_address_hashes_to_include: `native,${TOKEN}`,
            block_number: BLOCK, transaction_index: '3', internal_transaction_index: 'null', token_transfer_index: '7', token_transfer_batch_index: 'null', items_count: '50',
        },
    },
    exportAdvancedFilterCsv: {
        query: { transaction_types: 'ERC-20', age_from: '2026-11-01T00:00:00Z', age_to: '2026-11-30T00:00:00Z', to_address_hashes_to_include: ACCOUNT },
    },
    listAdvancedFilterMethods: { query: { q: 'transfer' } },

    // Smart contracts and their verification
    listVerifiedContracts: { query: { q: 'Counter', filter: 'solidity' } },
    getSmartContract: { params: { hash: CONTRACT } },
    verifyContractStandardInput: { params: { hash: CONTRACT } },
    verifyContractFlattenedCode: {
        params: { hash: CONTRACT },
        body: {
            compiler_version: COMPILER,
            source_code: SOURCE,
            contract_name: 'Counter',
            is_optimization_enabled: true,
            optimization_runs: 200,
            evm_version: 'cancun',
            autodetect_constructor_args: true,
            license_type: 'mit',
        },
    },

    // Search
    search: { query: { q: 'USDC' } },
    quickSearch: { query: { q: 'USDC' } },
    checkSearchRedirect: { query: { q: TRANSACTION } },

    // The Etherscan-style API
    callEtherscanApi: {
        query: { module: 'account', action: 'txlist', address: ACCOUNT, startblock: '0', endblock: '99999999', page: '1', offset: '10', sort: 'asc' },
    },
    submitEtherscanVerification: {
        body: {
            module: 'contract',
            action: 'verifysourcecode',
            contractaddress: CONTRACT,
            sourceCode: SOURCE,
            codeformat: 'solidity-single-file',
            contractname: 'Counter',
            compilerversion: COMPILER,
            optimizationUsed: '1',
            runs: '200',
            evmversion: 'cancun',
            licenseType: 'mit',
        },
    },
}
