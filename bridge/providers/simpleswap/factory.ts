import { SimpleSwapOptions, SimpleSwapProvider, SIMPLESWAP_DEFAULT_URL } from './client'

/**
 * The provider from the environment: SIMPLESWAP_API_KEY (required; unset or blank means the
 * provider is not configured, and the routes that need it answer 503 not_configured) and
 * SIMPLESWAP_API_URL (default the public v3 base). A malformed URL is a configuration error.
 */
export function simpleSwapFromEnv(
    env: { SIMPLESWAP_API_KEY?: string; SIMPLESWAP_API_URL?: string } = process.env,
    overrides: Omit<Partial<SimpleSwapOptions>, 'apiKey' | 'baseUrl'> = {},
): SimpleSwapProvider | undefined {
    const apiKey = env.SIMPLESWAP_API_KEY?.trim()
    if (!apiKey) return undefined
    const raw = env.SIMPLESWAP_API_URL?.trim() || SIMPLESWAP_DEFAULT_URL
    let url: URL
    try {
        url = new URL(raw)
    } catch {
        throw new Error('SIMPLESWAP_API_URL is not a URL')
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('SIMPLESWAP_API_URL must be http(s)')
    if (url.username || url.password || url.search) throw new Error('SIMPLESWAP_API_URL must not carry credentials or a query')
    return new SimpleSwapProvider({ ...overrides, apiKey, baseUrl: url.toString() })
}
