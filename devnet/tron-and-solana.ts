import { Connection, PublicKey } from '@solana/web3.js'
import { formatUnits } from '../bridge/amounts'
import { hexAddress } from '../bridge/chains/tron/address'
import { int64, TronHttp } from '../bridge/chains/tron/client'
import { Logger } from '../common/logger'
import { LocalNetwork } from './local-network'
import { DevnetEnv } from './config'
import { startSolanaDevnet } from './solana'
import { sendSolana } from './solana/send'
import { startTronDevnet } from './tron'
import { sendTron, TronToken } from './tron/send'

/** The bridge's TRON and SOLANA as local networks for `npm start`, each unless its URL is set: docs/bridge/README.md#local-chains-npm-start */

export type TronAndSolanaEnv = DevnetEnv & { TRON_API_URL?: string; SOLANA_RPC_URL?: string }

/** Levels the launcher keeps the bridge's vaults at, in base units. */
const VAULT_TRX_SUN = 100_000_000_000n
const VAULT_USDT = 1_000_000_000_000n
const VAULT_LAMPORTS = 1_000_000_000_000n

export async function startTronAndSolana(env: TronAndSolanaEnv, log: Logger): Promise<LocalNetwork> {
    let tron: Awaited<ReturnType<typeof startTronDevnet>> | undefined
    let solana: Awaited<ReturnType<typeof startSolanaDevnet>> | undefined
    const stop = async () => {
        await Promise.allSettled([tron?.stop(), solana?.stop()])
    }
    try {
        if (!env.TRON_API_URL) tron = await startTronDevnet(env, log.child({ chain: 'TRON' }))
        if (!env.SOLANA_RPC_URL) solana = await startSolanaDevnet(env, log.child({ chain: 'SOLANA' }))
    } catch (err) {
        await stop()
        throw err
    }
    const label = (name: string) => `${name} (local) API`.padEnd(25)
    return {
        childEnv: {
            ...(tron ? { TRON_API_URL: tron.url, TRON_USDT_CONTRACT: tron.usdtContract } : {}),
            ...(solana ? { SOLANA_RPC_URL: solana.url } : {}),
        },
        banner: [
            ...(tron ? [`${label('TRON')}${tron.url}  (USDT ${tron.usdtContract})`] : []),
            ...(solana ? [`${label('SOLANA')}${solana.url}`] : []),
        ],
        fund: async (vault) => {
            const funded: Record<string, string> = {}
            const tronVault = vault('TRON')
            if (tron && tronVault) {
                await topUpTronVault({ ...env, TRON_API_URL: tron.url, TRON_USDT_CONTRACT: tron.usdtContract }, tronVault)
                funded.TRON = tronVault
            }
            const solanaVault = vault('SOLANA')
            if (solana && solanaVault) {
                await topUpSolanaVault({ ...env, SOLANA_RPC_URL: solana.url }, solanaVault)
                funded.SOLANA = solanaVault
            }
            log.info({ vaults: funded }, 'bridge vaults funded on the local TRON and SOLANA')
        },
        stop,
    }
}

/** Sends what the vault lacks of VAULT_TRX_SUN and VAULT_USDT (TRX first: the vault pays its own fees). */
export async function topUpTronVault(env: TronAndSolanaEnv & { TRON_API_URL: string; TRON_USDT_CONTRACT: string }, vault: string): Promise<void> {
    const http = new TronHttp(env.TRON_API_URL)
    const balances: Record<TronToken, () => Promise<bigint>> = {
        TRX: async () => int64((await http.account(vault))?.balance),
        USDT: () => http.callConstant(env.TRON_USDT_CONTRACT, vault, 'balanceOf(address)', hexAddress(vault).slice(2).padStart(64, '0')),
    }
    for (const [token, level] of [['TRX', VAULT_TRX_SUN], ['USDT', VAULT_USDT]] as const) {
        const held = await balances[token]()
        if (held < level) await sendTron(env, vault, formatUnits(level - held, 6), token)
    }
}

/** Sends what the vault lacks of VAULT_LAMPORTS. */
export async function topUpSolanaVault(env: TronAndSolanaEnv & { SOLANA_RPC_URL: string }, vault: string): Promise<void> {
    const held = BigInt(await new Connection(env.SOLANA_RPC_URL, 'processed').getBalance(new PublicKey(vault)))
    if (held < VAULT_LAMPORTS) await sendSolana(env, vault, formatUnits(VAULT_LAMPORTS - held, 9))
}
