import { Address, createWalletClient, encodeFunctionData, Hash, http, numberToHex, parseEther } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { platformTokenAbi } from '../../../abi'
import { ZERO_FEES, nativeChain } from '../../../common/chain'
import { DEV_MNEMONIC } from '../../../devnet/anvil'
import { mintStable } from '../../../devnet/deploy'
import { PlatformProcess, startPlatformProcess } from '../../support/api'
import { CHAIN_ID, headHash, startTestChain, TestChain } from '../../support/chain'
import { IndexerProcess, startIndexer, waitForIndexedBlock } from '../../support/indexer'
import { createTestDatabase } from '../../support/postgres'

/** A chain with our contracts, a database, the real platform process, and (when asked) the real indexer. */
export interface PlatformFixture {
    chain: TestChain
    databaseUrl: string
    platform: PlatformProcess
    indexer?: IndexerProcess
    http: PlatformClient
    stop(): Promise<void>
}

export async function startPlatform(options: { indexer?: boolean; env?: Record<string, string> } = {}): Promise<PlatformFixture> {
    const chain = await startTestChain()
    const stops: (() => Promise<void>)[] = [chain.stop]
    const stop = async () => {
        for (const s of stops.reverse()) await s().catch(() => undefined)
    }
    try {
        const databaseUrl = await createTestDatabase('platform')
        const platform = await startPlatformProcess({ databaseUrl, rpcUrl: chain.url, contracts: chain.contracts, env: options.env })
        stops.push(platform.stop)
        let indexer: IndexerProcess | undefined
        if (options.indexer) {
            indexer = startIndexer({ databaseUrl, rpcUrl: chain.url, contracts: chain.contracts })
            stops.push(indexer.stop)
        }
        return { chain, databaseUrl, platform, indexer, http: new PlatformClient(platform.platformUrl), stop }
    } catch (err) {
        await stop()
        throw err
    }
}

export interface Reply {
    status: number
    body: any
    headers: Headers
}

let ipCounter = 0

/** A fresh client IP (TEST-NET-2), so the per-IP budgets of callers do not mix. */
export function nextIp(): string {
    ipCounter++
    return `198.51.${100 + ((ipCounter >> 8) & 15)}.${ipCounter & 255}`
}

/**
 * HTTP against the platform port; `pwd` goes in the x-user-pwd header. Given an `ip`, the client
 * poses as that address in X-Forwarded-For (which counts when the api runs with TRUST_PROXY).
 */
export class PlatformClient {
    constructor(readonly url: string, readonly ip?: string) {}

    async get(path: string, query: Record<string, string> = {}, pwd?: string): Promise<Reply> {
        const qs = new URLSearchParams(query).toString()
        return this.send('GET', `${path}${qs ? `?${qs}` : ''}`, undefined, pwd)
    }

    async post(path: string, body: unknown, pwd?: string): Promise<Reply> {
        return this.send('POST', path, body, pwd)
    }

    async send(method: string, path: string, body?: unknown, pwd?: string, rawBody?: string): Promise<Reply> {
        const headers: Record<string, string> = {}
        if (body !== undefined || rawBody !== undefined) headers['content-type'] = 'application/json'
        if (pwd !== undefined) headers['x-user-pwd'] = pwd
        if (this.ip !== undefined) headers['x-forwarded-for'] = this.ip
        const res = await fetch(`${this.url}${path}`, { method, headers, body: rawBody ?? (body === undefined ? undefined : JSON.stringify(body)) })
        const text = await res.text()
        let parsed: any
        try {
            parsed = JSON.parse(text)
        } catch {
            parsed = text
        }
        return { status: res.status, body: parsed, headers: res.headers }
    }
}

/** anvil's first development account: deployer of our contracts and owner of STABLE. */
export const deployer = mnemonicToAccount(DEV_MNEMONIC)

export async function setNativeBalance(chain: TestChain, address: Address, wei: bigint): Promise<void> {
    await chain.client.request({ method: 'anvil_setBalance' as any, params: [address, numberToHex(wei)] as any })
}

export async function giveStable(chain: TestChain, to: Address, units: bigint): Promise<void> {
    await mintStable(chain.url, CHAIN_ID, deployer, chain.contracts.stable, to, units)
}

export async function tokenBalance(chain: TestChain, token: Address, holder: Address): Promise<bigint> {
    return chain.client.readContract({ address: token, abi: platformTokenAbi, functionName: 'balanceOf', args: [holder] })
}

export async function nativeBalance(chain: TestChain, holder: Address): Promise<bigint> {
    return chain.client.getBalance({ address: holder })
}

/** Sends a token from the deployer account, outside the platform. */
export async function transferFromDeployer(chain: TestChain, token: Address, to: Address, units: bigint): Promise<Hash> {
    const wallet = createWalletClient({ account: deployer, chain: nativeChain(CHAIN_ID, chain.url), transport: http(chain.url) })
    const hash = await wallet.sendTransaction({
        to: token,
        data: encodeFunctionData({ abi: platformTokenAbi, functionName: 'transfer', args: [to, units] }),
        ...ZERO_FEES,
    })
    await chain.client.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    return hash
}

export async function waitForIndexedHead(fixture: PlatformFixture): Promise<void> {
    await waitForIndexedBlock(fixture.databaseUrl, await headHash(fixture.chain.client), fixture.indexer)
}

export const ONE = parseEther('1')

/** Registers a user with a fresh random wallet; returns its address. */
export async function newWallet(http: PlatformClient, userId: string, pwd: string): Promise<Address> {
    const res = await http.post('/api/wallet/register_random', { user_id: userId, user_pwd: pwd })
    if (res.status !== 201) throw new Error(`register_random failed: ${res.status} ${JSON.stringify(res.body)}`)
    return res.body.result.address
}

/** Deploys a PlatformToken through the platform; returns its address. */
export async function deployToken(
    http: PlatformClient,
    userId: string,
    pwd: string,
    params: Record<string, unknown>
): Promise<Address> {
    const res = await http.post('/api/token/deploy', { user_id: userId, ...params }, pwd)
    if (res.status !== 201) throw new Error(`deploy failed: ${res.status} ${JSON.stringify(res.body)}`)
    return res.body.data.contractAddress
}
