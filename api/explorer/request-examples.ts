import { RequestExample } from '../../common/service/api-doc'

/**
 * One working request per explorer-services operation that takes input, by operationId, for the
 * OpenAPI document of the explorer port (ApiDoc parses each with its route's schemas at
 * registration). The chain data API's are in api/chain/request-examples.ts.
 */

const EMAIL = 'alice@example.com'
const WATCHED = '0x31c1a6bf6b2a5f6e7a0e3b1d0cb2bd24aa1cbd24'
const POOL = '0x8b2e4b9c5d1f0a3e6c7d9f1b2a4c6e8f0a1b3c5d'
const TOKEN = '0x5fbdb2315678afecb367f032d93f642f64180aa3'

export const EXPLORER_EXAMPLES: Record<string, RequestExample> = {
    signUp: { body: { email: EMAIL, password: 'correct horse battery staple', name: 'Alice' } },
    signIn: { body: { email: EMAIL, password: 'correct horse battery staple', remember: true } },
    verifyEmailWithCode: { body: { email: EMAIL, code: '482913' } },
    verifyEmailWithLink: { query: { token: 'the-token-of-the-mailed-link' } },
    resendVerificationCode: { body: { email: EMAIL } },
    requestPasswordReset: { body: { email: EMAIL } },
    resetPassword: { body: { token: 'the-token-of-the-reset-mail', password: 'a new long passphrase' } },
    watchAddress: {
        body: {
            address: WATCHED,
            name: 'Treasury',
            notification_settings: { native: { incoming: true, outgoing: true }, 'ERC-20': { incoming: true, outgoing: false } },
            notification_methods: { email: true },
        },
    },
    unwatchAddress: { params: { address: WATCHED } },
    unsubscribeAlert: { query: { token: 'the-token-of-the-alert-mail' } },
    unsubscribeAlertOneClick: { query: { token: 'the-token-of-the-alert-mail' } },
    subscribeNewsletter: { body: { email: EMAIL } },
    sendSupportRequest: { body: { kind: 'support', name: 'Alice', email: EMAIL, subject: 'A missing token transfer', message: 'The transfer in block 1204 is not listed on my address.' } },
    listDefiPools: { query: { limit: '20', offset: '0' } },
    getDailySwapVolume: { query: { days: '30' } },
    getDefiPool: { params: { address: POOL } },
    getDefiPoolHistory: { params: { address: POOL }, query: { interval: 'hour', from: '2026-11-28T00:00:00Z', to: '2026-11-28T23:00:00Z' } },
    getDefiToken: { params: { address: TOKEN } },
    getDefiTokenHistory: { params: { address: TOKEN }, query: { from: '2026-11-01', to: '2026-11-30' } },
    listContractInfoPools: { params: { chainId: '3009' }, query: { page_size: '50', query: 'STABLE' } },
    getContractInfoPool: { params: { chainId: '3009', hash: POOL } },
}
