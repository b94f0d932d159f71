import { Address, createPublicClient, getAddress, hexToString, http, parseAbi, PublicClient, zeroAddress } from 'viem'
import { ammFactoryAbi, ammPairAbi, bytes32TokenAbi, platformTokenAbi } from '../../abi'
import { nativeChain } from '../../common/chain'
import { ConfigError, NativeContracts, nativeContracts, rpcUrl, SharedEnv } from '../../common/config'
import { explainChainError, isNodeUnavailable } from './chain-errors'
import { badRequest, HttpError, unavailable } from './http'

export interface TokenMeta {
    address: Address
    name: string
    symbol: string
    decimals: number
}

/**
 * Most decimals a token may report: the ERC-20 standard's uint8. Beyond that an amount's decimal
 * text grows with the decimals (a token answering 10^8 would make every amount a 100 MB string).
 */
export const MAX_TOKEN_DECIMALS = 255

/** decimals() read as the full word a contract returns, so a value past uint8 is seen, not wrapped or refused by the decoder. */
const decimalsWordAbi = parseAbi(['function decimals() view returns (uint256)'])

export interface TokenFees {
    /** Basis points charged on transfers out of one of our pairs. */
    buying: number
    /** Basis points charged on transfers into one of our pairs. */
    selling: number
}

/**
 * The platform's view of the native chain: one client, the contract addresses, and reads of
 * token facts that never change (metadata, PlatformToken fees), cached for the process's life.
 */
export class ChainService {
    readonly client: PublicClient
    readonly chainId: number
    private contractsCache?: NativeContracts
    private chainChecked?: Promise<void>
    private readonly metaCache = new Map<string, Promise<TokenMeta>>()
    private readonly feeCache = new Map<string, Promise<TokenFees>>()

    constructor(private readonly env: SharedEnv) {
        this.chainId = env.CHAIN_ID
        const url = rpcUrl(env)
        this.client = createPublicClient({
            chain: nativeChain(env.CHAIN_ID, url),
            // Sends must not be retried blindly (a retried raw transaction is "already known"); reads are cheap to repeat by the caller.
            transport: http(url, { timeout: 15_000, retryCount: 0 }),
            cacheTime: 0,
        }) as PublicClient
    }

    /** Whether the contract addresses are known (from env or the devnet's deployment file). */
    configured(): boolean {
        try {
            this.contracts()
            return true
        } catch {
            return false
        }
    }

    /** Contract addresses; 503 when the deployment has none (a chain we did not deploy): a surface that is off, not the caller's error. */
    contracts(): NativeContracts {
        if (this.contractsCache) return this.contractsCache
        try {
            const c = nativeContracts(this.env, 'Every chain route of the wallet platform')
            this.contractsCache = {
                wnative: getAddress(c.wnative),
                stable: getAddress(c.stable),
                factory: getAddress(c.factory),
                router: getAddress(c.router),
            }
            return this.contractsCache
        } catch (err) {
            // Our contract variables are public knowledge (docs/own-chain.md); saying which to set helps the operator and tells a stranger nothing.
            if (err instanceof ConfigError) throw unavailable(err.message)
            throw err
        }
    }

    /**
     * Contracts, after checking once that the node serves the configured chain: signatures for
     * another chain id would be refused by it anyway, with a far less helpful message.
     */
    async ready(): Promise<NativeContracts> {
        const contracts = this.contracts()
        this.chainChecked ??= this.client.getChainId().then(
            (id) => {
                if (id !== this.chainId) {
                    this.chainChecked = undefined
                    throw unavailable(`The chain node serves chain id ${id}, not the configured CHAIN_ID ${this.chainId}`)
                }
            },
            (err) => {
                this.chainChecked = undefined
                throw isNodeUnavailable(err) ? unavailable('The chain node is unavailable; retry later') : err
            }
        )
        await this.chainChecked
        return contracts
    }

    /** Name, symbol and decimals of an ERC-20 (a bytes32 name or symbol is decoded too). */
    tokenMeta(token: Address): Promise<TokenMeta> {
        const key = token.toLowerCase()
        let meta = this.metaCache.get(key)
        if (!meta) {
            meta = this.readMeta(token)
            this.metaCache.set(key, meta)
            // Failures are not facts: a node hiccup or a token deployed a moment later must be retried.
            meta.catch(() => this.metaCache.delete(key))
        }
        return meta
    }

    private async readMeta(token: Address): Promise<TokenMeta> {
        const code = await this.read(() => this.client.getCode({ address: token }))
        if (!code || code === '0x') throw badRequest(`There is no contract at ${token}; give the address of an ERC-20 token`)
        const decimals = await this.client.readContract({ address: token, abi: decimalsWordAbi, functionName: 'decimals' }).catch((err) => {
            if (isNodeUnavailable(err)) throw explainChainError(err)
            return undefined
        })
        if (decimals === undefined) throw badRequest(`${token} is not an ERC-20 token (it has no decimals())`)
        if (decimals > BigInt(MAX_TOKEN_DECIMALS)) {
            throw new HttpError(422, `token ${getAddress(token)} reports ${decimals} decimals; at most ${MAX_TOKEN_DECIMALS} are supported`)
        }
        const [name, symbol] = await Promise.all([this.text(token, 'name'), this.text(token, 'symbol')])
        return { address: getAddress(token), name, symbol, decimals: Number(decimals) }
    }

    private async text(token: Address, fn: 'name' | 'symbol'): Promise<string> {
        try {
            return await this.client.readContract({ address: token, abi: platformTokenAbi, functionName: fn })
        } catch {
            try {
                const raw = await this.client.readContract({ address: token, abi: bytes32TokenAbi, functionName: fn })
                return hexToString(raw, { size: 32 }).replace(/\u0000+$/, '')
            } catch {
                return ''
            }
        }
    }

    /** Transfer fees a PlatformToken charges in our pairs; 0 for every other token. */
    tokenFees(token: Address): Promise<TokenFees> {
        const key = token.toLowerCase()
        let fees = this.feeCache.get(key)
        if (!fees) {
            fees = this.readFees(token)
            this.feeCache.set(key, fees)
            fees.catch(() => this.feeCache.delete(key))
        }
        return fees
    }

    private async readFees(token: Address): Promise<TokenFees> {
        const read = <F extends 'buyingFee' | 'sellingFee' | 'ammFactory'>(functionName: F) =>
            this.client.readContract({ address: token, abi: platformTokenAbi, functionName }).then(
                (v) => v,
                (err) => {
                    if (isNodeUnavailable(err)) throw explainChainError(err)
                    return undefined
                }
            )
        const [buying, selling, factory] = await Promise.all([read('buyingFee'), read('sellingFee'), read('ammFactory')])
        // A PlatformToken charges fees only in pairs of the factory it was deployed for.
        if (factory === undefined || (factory as string).toLowerCase() !== this.contracts().factory.toLowerCase()) {
            return { buying: 0, selling: 0 }
        }
        return { buying: Number(buying ?? 0), selling: Number(selling ?? 0) }
    }

    async pairOf(tokenA: Address, tokenB: Address): Promise<Address | undefined> {
        const pair = await this.read(() => this.client.readContract({
            address: this.contracts().factory, abi: ammFactoryAbi, functionName: 'getPair', args: [tokenA, tokenB],
        }))
        return pair === zeroAddress ? undefined : pair
    }

    /** Reserves of a pair in the order of (tokenA, tokenB). */
    async reserves(pair: Address, tokenA: Address): Promise<[bigint, bigint]> {
        const [[r0, r1], token0] = await Promise.all([
            this.read(() => this.client.readContract({ address: pair, abi: ammPairAbi, functionName: 'getReserves' })),
            this.read(() => this.client.readContract({ address: pair, abi: ammPairAbi, functionName: 'token0' })),
        ])
        return token0.toLowerCase() === tokenA.toLowerCase() ? [r0, r1] : [r1, r0]
    }

    async balanceOf(token: Address, holder: Address): Promise<bigint> {
        return this.read(() => this.client.readContract({ address: token, abi: platformTokenAbi, functionName: 'balanceOf', args: [holder] }))
    }

    async allowance(token: Address, owner: Address, spender: Address): Promise<bigint> {
        return this.read(() => this.client.readContract({ address: token, abi: platformTokenAbi, functionName: 'allowance', args: [owner, spender] }))
    }

    async nativeBalance(holder: Address): Promise<bigint> {
        return this.read(() => this.client.getBalance({ address: holder }))
    }

    /** Router deadline: from the chain's clock, which on a devnet need not be the wall clock. */
    async deadline(seconds: number, override?: number): Promise<bigint> {
        if (override !== undefined) return BigInt(override)
        const block = await this.read(() => this.client.getBlock({ blockTag: 'latest' }))
        const now = BigInt(Math.floor(Date.now() / 1000))
        return (block.timestamp > now ? block.timestamp : now) + BigInt(seconds)
    }

    /** A read whose failure is the node's problem or a revert, as a 4xx/503 rather than a 500. */
    async read<T>(fn: () => Promise<T>): Promise<T> {
        try {
            return await fn()
        } catch (err) {
            if (err instanceof HttpError) throw err
            throw explainChainError(err)
        }
    }
}
