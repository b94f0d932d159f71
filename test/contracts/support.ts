import { createHash } from 'crypto'
import { expect } from 'chai'
import {
    Abi, Account, Address, BaseError, ContractConstructorArgs, ContractFunctionRevertedError, createPublicClient,
    createWalletClient, decodeErrorResult, encodeDeployData, Hash, Hex, http, maxUint256, PublicClient,
    TransactionReceipt,
} from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { abis, ContractName, loadArtifact } from '../../abi'
import { NativeContracts } from '../../common/config'
import { Anvil, DEV_MNEMONIC, startAnvil } from '../../devnet/anvil'
import { deployContract, deployNativeContracts, deployPlatformToken, devnetChain, PlatformTokenParams, ZERO_FEES } from '../../devnet/deploy'
import { freePort } from '../support/ports'

export const CHAIN_ID = 3009
/**
 * Fields for every test transaction: zero fees, and a fixed gas limit instead of an estimate. An
 * estimate can fall short when the transaction lands in a later second than the estimation saw: a
 * pair then also updates its price accumulators, which costs more gas.
 */
export const TX = { ...ZERO_FEES, gas: 3_000_000n } as const

/** A deadline that never passes during a test. */
export const FAR_DEADLINE = 2n ** 40n

/** A fresh anvil with the native contracts deployed, and shortcuts for writing to it. */
export class TestChain {
    readonly client: PublicClient
    readonly deployer = TestChain.account(0)

    private constructor(
        readonly anvil: Anvil,
        readonly contracts: NativeContracts
    ) {
        this.client = createPublicClient({ chain: devnetChain(CHAIN_ID, anvil.url), transport: http(anvil.url) }) as PublicClient
    }

    static async start(): Promise<TestChain> {
        const anvil = await startAnvil({ port: await freePort(), chainId: CHAIN_ID })
        try {
            const { contracts } = await deployNativeContracts({ rpcUrl: anvil.url, chainId: CHAIN_ID })
            return new TestChain(anvil, contracts)
        } catch (err) {
            await anvil.stop()
            throw err
        }
    }

    /** A development account; indices above 9 hold no coin, which zero-fee transactions do not need. */
    static account(index: number): Account {
        return mnemonicToAccount(DEV_MNEMONIC, { addressIndex: index })
    }

    get url(): string {
        return this.anvil.url
    }

    wallet(account: Account) {
        return createWalletClient({ account, chain: devnetChain(CHAIN_ID, this.url), transport: http(this.url) })
    }

    /** Waits for a transaction and asserts it succeeded. */
    async mined(hash: Hash | Promise<Hash>): Promise<TransactionReceipt> {
        const receipt = await this.client.waitForTransactionReceipt({ hash: await hash, pollingInterval: 20 })
        expect(receipt.status, `transaction ${receipt.transactionHash}`).to.equal('success')
        return receipt
    }

    async deploy<N extends ContractName>(name: N, args: ContractConstructorArgs<(typeof abis)[N]>, account = this.deployer): Promise<Address> {
        return (await deployContract(this.url, CHAIN_ID, account, name, args)).address
    }

    async deployToken(params: Omit<PlatformTokenParams, 'ammFactory'> & { ammFactory?: Address }, account = this.deployer): Promise<Address> {
        return deployPlatformToken(this.url, CHAIN_ID, account, { ammFactory: this.contracts.factory, ...params })
    }

    /** Simulates a deployment, for asserting on constructor reverts. */
    simulateDeploy<N extends ContractName>(name: N, args: ContractConstructorArgs<(typeof abis)[N]>, account = this.deployer) {
        const { abi, bytecode } = loadArtifact(name)
        const data = encodeDeployData({ abi, bytecode, args } as never)
        return this.client.call({ account, data })
    }

    async balanceOf(token: Address, owner: Address): Promise<bigint> {
        return this.client.readContract({ address: token, abi: abis.PlatformToken, functionName: 'balanceOf', args: [owner] })
    }

    async transfer(token: Address, from: Account, to: Address, amount: bigint): Promise<TransactionReceipt> {
        return this.mined(this.wallet(from).writeContract({
            address: token, abi: abis.PlatformToken, functionName: 'transfer', args: [to, amount], ...TX,
        }))
    }

    async approveRouter(token: Address, owner: Account): Promise<void> {
        await this.mined(this.wallet(owner).writeContract({
            address: token, abi: abis.PlatformToken, functionName: 'approve', args: [this.contracts.router, maxUint256], ...TX,
        }))
    }

    async mintStable(to: Address, amount: bigint): Promise<void> {
        await this.mined(this.wallet(this.deployer).writeContract({
            address: this.contracts.stable, abi: abis.Stable, functionName: 'mint', args: [to, amount], ...TX,
        }))
    }

    /** Adds liquidity from the deployer, who must hold and have approved both tokens. */
    async addLiquidity(tokenA: Address, tokenB: Address, amountA: bigint, amountB: bigint): Promise<Address> {
        await this.mined(this.wallet(this.deployer).writeContract({
            address: this.contracts.router,
            abi: abis.AmmRouter,
            functionName: 'addLiquidity',
            args: [tokenA, tokenB, amountA, amountB, 0n, 0n, this.deployer.address, FAR_DEADLINE],
            ...TX,
        }))
        return this.getPair(tokenA, tokenB)
    }

    async getPair(tokenA: Address, tokenB: Address): Promise<Address> {
        return this.client.readContract({ address: this.contracts.factory, abi: abis.AmmFactory, functionName: 'getPair', args: [tokenA, tokenB] })
    }

    /** Reserves of the pair of two tokens, in the order the tokens are given. */
    async reserves(tokenA: Address, tokenB: Address): Promise<[bigint, bigint]> {
        const pair = await this.getPair(tokenA, tokenB)
        const [reserve0, reserve1] = await this.client.readContract({ address: pair, abi: abis.AmmPair, functionName: 'getReserves' })
        const token0 = await this.client.readContract({ address: pair, abi: abis.AmmPair, functionName: 'token0' })
        return token0.toLowerCase() === tokenA.toLowerCase() ? [reserve0, reserve1] : [reserve1, reserve0]
    }

    async timestamp(): Promise<bigint> {
        return (await this.client.getBlock()).timestamp
    }

    stop(): Promise<void> {
        return this.anvil.stop()
    }
}

/**
 * The revert reason of a call that must fail: the Error(string) message, the name of a custom
 * error found in `abi`, or '' for a revert without data. Fails the test when the call succeeds.
 */
export async function revertOf(action: Promise<unknown>, abi: Abi = []): Promise<string> {
    try {
        await action
    } catch (err) {
        if (!(err instanceof BaseError)) throw err
        const reverted = err.walk((e) => e instanceof ContractFunctionRevertedError)
        if (reverted instanceof ContractFunctionRevertedError) {
            // A bare `revert()` carries no data (viem then reports the node's generic message).
            if (!reverted.raw || reverted.raw === '0x') return ''
            return reverted.reason ?? reverted.data?.errorName ?? reverted.signature ?? reverted.raw
        }
        // Plain eth_call (deployments): the revert data sits on the RPC error.
        const withData = err.walk((e) => typeof (e as { data?: unknown }).data === 'string')
        const data = (withData as { data?: Hex } | null)?.data
        if (data === undefined) throw err
        if (data === '0x') return ''
        const decoded = decodeErrorResult({ abi, data })
        return decoded.errorName === 'Error' ? String(decoded.args?.[0]) : decoded.errorName
    }
    expect.fail('expected a revert, but the call succeeded')
}

/**
 * Asserts the revert reason is exactly `token`, optionally after a contract prefix such as
 * "AmmRouter: " (so INSUFFICIENT_LIQUIDITY does not pass for INSUFFICIENT_LIQUIDITY_MINTED).
 */
export async function expectRevert(action: Promise<unknown>, token: string, abi: Abi = []): Promise<string> {
    const reason = await revertOf(action, abi)
    expect(reason).to.match(new RegExp(`^(\\w+: )?${token}$`))
    return reason
}

/** Reproducible pseudo-random amounts, so a failure can be replayed. */
export class SeededRandom {
    private counter = 0
    constructor(private readonly seed: string) {}

    /** Uniform in [low, high]. */
    bigint(low: bigint, high: bigint): bigint {
        const digest = createHash('sha256').update(`${this.seed}:${this.counter++}`).digest('hex')
        return low + (BigInt(`0x${digest}`) % (high - low + 1n))
    }

    /** Log-uniform in [low, high]: as many tiny amounts as huge ones. */
    magnitude(low: bigint, high: bigint): bigint {
        const digits = this.bigint(BigInt(low.toString().length), BigInt(high.toString().length))
        const top = 10n ** digits
        const value = this.bigint(top / 10n, top - 1n)
        return value < low ? low : value > high ? high : value
    }
}
