import { RequestExample } from '../../common/service/api-doc'

/**
 * One working request per platform operation, by operationId, for the OpenAPI document (Swagger UI
 * pre-fills them). ApiDoc parses each with its route's schemas when the route is registered, so an
 * example the handler would refuse stops the process from starting. Amounts are whole tokens as
 * decimal strings; the password goes in the x-user-pwd header, never here.
 */

// A user's wallet, a second wallet it pays, and two tokens of the devnet (the addresses are illustrative).
const WALLET = '0x31C1A6bF6b2a5F6e7A0e3B1D0cb2bd24AA1CBD24'
const RECIPIENT = '0x9aE1c0E1d8B5c7F2A3e4b5C6d7e8F9a0b1C207F3'
const GOLD = '0x5FbDB2315678afecb367f032d93F642f64180aa3'
const STABLE = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512'
const PAIR = '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0'
const USER = 'alice'
const TX = '0x5c50b3a2d7e1f4c8a9b0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1a9'
// The well-known first key of anvil's test mnemonic: never holds real funds.
const TEST_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
const TEST_ADDRESS = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
const TEST_MNEMONIC = 'test test test test test test test test test test test junk'

export const PLATFORM_EXAMPLES: Record<string, RequestExample> = {
    registerWallet: { body: { user_id: USER, address: TEST_ADDRESS, priv_key: TEST_KEY } },
    registerRandomWallet: { body: { user_id: USER } },
    createMnemonicWallet: { query: { user_id: USER } },
    importMnemonicWallet: { body: { user_id: USER, mnemonic: TEST_MNEMONIC } },
    importPrivateKeyWallet: { body: { user_id: USER, privateKey: TEST_KEY } },
    getNativeBalance: { params: { address: WALLET }, query: { user_id: USER } },
    listWalletTokens: { query: { address: WALLET, user_id: USER, limit: '50', offset: '0' } },
    sendTransfer: { body: { address_from: WALLET, address_to: RECIPIENT, token: GOLD, amount: '12.5', user_id: USER } },
    withdrawFunds: { body: { address_from: WALLET, address_to: RECIPIENT, token: 'NATIVE', amount: '0.25', user_id: USER } },

    listWallets: { query: { user_id: USER } },
    listWalletTransactions: { params: { address: WALLET }, query: { user_id: USER, limit: '20' } },
    getTransactionStatus: { params: { hash: TX }, query: { user_id: USER } },

    deployToken: {
        body: {
            user_id: USER, tokenName: 'Gold', tokenSymbol: 'GOLD', tokenDescription: 'A token of the example', totalSupply: '1000000',
            decimals: 18, buyingFee: 0, sellingFee: 0, mintable: false, destinationAddress: WALLET, address: WALLET,
        },
    },
    getTokenInfo: { params: { address: GOLD }, query: { user_id: USER } },
    getTokenInfoByAddress: { body: { user_id: USER, address: GOLD } },
    listDeployedTokens: { query: { user_id: USER, limit: '100', offset: '0' } },
    listPlatformTokens: { query: { user_id: USER, limit: '100', offset: '0' } },

    quoteSwap: { query: { token_in: GOLD, token_out: STABLE, amount_in: '10', slippage_percent: '0.5' } },
    swapExactTokensForTokens: { body: { from: WALLET, token1: GOLD, token2: STABLE, amount_in: '10', amount_out_min: '19.74', user_id: USER } },
    swapTokensForExactTokens: { body: { from: WALLET, token1: GOLD, token2: STABLE, amount_out: '20', amount_in_max: '10.2', user_id: USER } },
    swapExactNativeForTokens: { body: { from: WALLET, token: GOLD, amount_native: '1', amount_out_min: '9.5', user_id: USER } },
    swapNativeForExactTokens: { body: { from: WALLET, token: GOLD, amount_out_min: '10', amount_native: '1.1', user_id: USER } },
    swapExactTokensForNative: { body: { from: WALLET, token1: GOLD, amount_in_max: '10', amount_out: '0.9', user_id: USER } },
    swapTokensForExactNative: { body: { from: WALLET, token1: GOLD, amount_out: '1', amount_in_max: '11', user_id: USER } },

    addLiquidity: {
        body: {
            address: WALLET, token1: GOLD, token2: STABLE, amount1_desired: '100', amount2_desired: '200',
            amount1_min: '99', amount2_min: '198', user_id: USER,
        },
    },
    addLiquidityNative: {
        body: {
            address: WALLET, token: GOLD, amount_token_desired: '100', amount_native_desired: '10',
            amount_token_min: '99', amount_native_min: '9.9', user_id: USER,
        },
    },
    removeLiquidity: { body: { address_to: WALLET, token1: GOLD, token2: STABLE, liquidity: '50', amount1_min: '0', amount2_min: '0', user_id: USER } },
    removeLiquidityNative: { body: { address_to: WALLET, token: GOLD, liquidity: '10', amount_token_min: '0', amount_native_min: '0', user_id: USER } },
    listWalletPools: { query: { address: WALLET, user_id: USER } },
    listUserPools: { query: { user_id: USER } },
    listUserWalletPools: { query: { user_id: USER, user_addr: WALLET } },
    getPoolByAddress: { query: { user_id: USER, address: PAIR } },
    getPoolByTokens: { query: { user_id: USER, token1: GOLD, token2: STABLE } },
}
