import {
    Account, Address, ContractConstructorArgs, createPublicClient, createWalletClient,
    encodeDeployData, getAddress, Hash, Hex, http, PublicClient, TransactionReceipt, zeroAddress,
} from 'viem'
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts'
import { abis, ContractName, loadArtifact } from '../abi'
import { nativeChain, ZERO_FEES } from '../common/chain'
import { platformTokenConstructorArgs, PlatformTokenParams } from '../common/platform-token'
import { NativeContracts } from '../common/config'
import { Logger } from '../common/logger'
import { DEV_MNEMONIC } from './anvil'

/**
 * Deployment of the native chain's contracts (WNATIVE, STABLE, the AMM factory and router) from
 * the committed artifacts in abi/, and the few writes the devnet's seeding needs. Every
 * transaction is sent with zero fees: the chain's minimum gas price is 0, accounts may hold no
 * coin, and anvil would otherwise fill in a 1 gwei tip.
 */

export { ZERO_FEES }
export type { PlatformTokenParams }

/** The native chain as viem knows it. */
export const devnetChain = nativeChain

function clients(rpcUrl: string, chainId: number, account: Account) {
    const chain = devnetChain(chainId, rpcUrl)
    const transport = http(rpcUrl)
    return {
        publicClient: createPublicClient({ chain, transport }) as PublicClient,
        walletClient: createWalletClient({ account, chain, transport }),
    }
}

async function confirmed(client: PublicClient, hash: Hash, what: string): Promise<TransactionReceipt> {
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    if (receipt.status !== 'success') throw new Error(`${what} reverted (transaction ${hash})`)
    return receipt
}

/** Deploys a contract from its committed artifact (sending `value` wei with it) and waits for the receipt. */
export async function deployContract<N extends ContractName>(
    rpcUrl: string,
    chainId: number,
    account: Account,
    name: N,
    args: ContractConstructorArgs<(typeof abis)[N]>,
    value?: bigint
): Promise<{ address: Address; blockNumber: number; transactionHash: Hash }> {
    const { publicClient, walletClient } = clients(rpcUrl, chainId, account)
    const { abi, bytecode } = loadArtifact(name)
    // viem cannot narrow the constructor arguments of a generic ABI; the signature above checks them.
    const hash = await walletClient.deployContract({ abi, bytecode, args, value, ...ZERO_FEES } as never)
    const receipt = await confirmed(publicClient, hash, `deployment of ${name}`)
    if (!receipt.contractAddress) throw new Error(`deployment of ${name} created no contract (transaction ${hash})`)
    return { address: getAddress(receipt.contractAddress), blockNumber: Number(receipt.blockNumber), transactionHash: hash }
}

export interface DeployOptions {
    rpcUrl: string
    /** Read from the node when not given. */
    chainId?: number
    /** The deployer; else `deployerPrivateKey`; else the first development account. */
    account?: Account
    deployerPrivateKey?: Hex
    /** Addresses of an earlier deployment, reused when they still hold the expected code. */
    previous?: NativeContracts
    log?: Logger
}

export interface NativeDeployment {
    contracts: NativeContracts
    /** Block of the first of the contracts; where an indexer of them may start. */
    startBlock: number
    /** False when `previous` was found on chain and nothing was sent. */
    deployed: boolean
}

/**
 * WNATIVE, STABLE (owned by the deployer, who can then mint), the AMM factory (the deployer sets
 * its protocol fee) and the router. Idempotent: when every contract of `previous` holds exactly the
 * code these artifacts would deploy there, they are returned and nothing is sent.
 */
export async function deployNativeContracts(options: DeployOptions): Promise<NativeDeployment> {
    const { rpcUrl, previous, log } = options
    const publicClient = createPublicClient({ transport: http(rpcUrl) }) as PublicClient
    const chainId = options.chainId ?? (await publicClient.getChainId())
    if (previous && (await holdsExpectedCode(publicClient, previous))) {
        const startBlock = await firstBlockWithCode(publicClient, Object.values(previous), log)
        log?.info({ contracts: previous, startBlock }, 'native contracts already deployed')
        return { contracts: previous, startBlock, deployed: false }
    }
    const account = options.account
        ?? (options.deployerPrivateKey ? privateKeyToAccount(options.deployerPrivateKey) : mnemonicToAccount(DEV_MNEMONIC))
    const wnative = await deployContract(rpcUrl, chainId, account, 'WNative', [])
    const stable = await deployContract(rpcUrl, chainId, account, 'Stable', [account.address])
    const factory = await deployContract(rpcUrl, chainId, account, 'AmmFactory', [account.address])
    const router = await deployContract(rpcUrl, chainId, account, 'AmmRouter', [factory.address, wnative.address])
    const contracts: NativeContracts = {
        wnative: wnative.address,
        stable: stable.address,
        factory: factory.address,
        router: router.address,
    }
    log?.info({ contracts, startBlock: wnative.blockNumber }, 'native contracts deployed')
    return { contracts, startBlock: wnative.blockNumber, deployed: true }
}

/**
 * Whether each address holds the runtime code its artifact produces. The expected code comes from
 * simulating the deployment with eth_call, which fills in the router's immutables (factory and
 * WNATIVE addresses) the way a real deployment would. Constructor arguments stored in storage
 * (owners) do not affect the code, so any value does for them.
 */
async function holdsExpectedCode(client: PublicClient, contracts: NativeContracts): Promise<boolean> {
    const expected: [Address, Hex][] = [
        [contracts.wnative, encodeDeployData({ abi: abis.WNative, bytecode: loadArtifact('WNative').bytecode })],
        [contracts.stable, encodeDeployData({ abi: abis.Stable, bytecode: loadArtifact('Stable').bytecode, args: [contracts.stable] })],
        [contracts.factory, encodeDeployData({ abi: abis.AmmFactory, bytecode: loadArtifact('AmmFactory').bytecode, args: [zeroAddress] })],
        [contracts.router, encodeDeployData({ abi: abis.AmmRouter, bytecode: loadArtifact('AmmRouter').bytecode, args: [contracts.factory, contracts.wnative] })],
    ]
    for (const [address, deployData] of expected) {
        const [onChain, simulated] = await Promise.all([client.getCode({ address }), client.call({ data: deployData })])
        if (!onChain || onChain === '0x' || onChain.toLowerCase() !== simulated.data?.toLowerCase()) return false
    }
    return true
}

/**
 * The earliest block at which any of the addresses has code, by bisection over historical state.
 * A node that keeps no history answers with an error; then 0 is the safe lower bound.
 */
async function firstBlockWithCode(client: PublicClient, addresses: Address[], log?: Logger): Promise<number> {
    const latest = await client.getBlockNumber()
    try {
        let first = latest
        for (const address of addresses) {
            let [low, high] = [0n, first]
            while (low < high) {
                const middle = (low + high) / 2n
                const code = await client.getCode({ address, blockNumber: middle })
                if (code && code !== '0x') high = middle
                else low = middle + 1n
            }
            first = low
        }
        return Number(first)
    } catch (err) {
        log?.warn({ err }, 'node keeps no historical state; taking block 0 as the deployment block')
        return 0
    }
}

/** Deploys a PlatformToken owned by `account`, which receives the supply. */
export async function deployPlatformToken(
    rpcUrl: string,
    chainId: number,
    account: Account,
    params: PlatformTokenParams
): Promise<Address> {
    const { address } = await deployContract(rpcUrl, chainId, account, 'PlatformToken', platformTokenConstructorArgs(params))
    return address
}

/** The pair of two tokens, created when it does not exist yet. */
export async function createPair(
    rpcUrl: string,
    chainId: number,
    account: Account,
    factory: Address,
    tokenA: Address,
    tokenB: Address
): Promise<Address> {
    const { publicClient, walletClient } = clients(rpcUrl, chainId, account)
    const getPair = () => publicClient.readContract({ address: factory, abi: abis.AmmFactory, functionName: 'getPair', args: [tokenA, tokenB] })
    const existing = await getPair()
    if (existing !== zeroAddress) return existing
    const hash = await walletClient.writeContract({
        address: factory, abi: abis.AmmFactory, functionName: 'createPair', args: [tokenA, tokenB], ...ZERO_FEES,
    })
    await confirmed(publicClient, hash, `createPair(${tokenA}, ${tokenB})`)
    return getPair()
}

/** Mints STABLE (base units, 6 decimals); `account` must be its owner, the deployer. */
export async function mintStable(
    rpcUrl: string,
    chainId: number,
    account: Account,
    stable: Address,
    to: Address,
    amount: bigint
): Promise<Hash> {
    const { publicClient, walletClient } = clients(rpcUrl, chainId, account)
    const hash = await walletClient.writeContract({
        address: stable, abi: abis.Stable, functionName: 'mint', args: [to, amount], ...ZERO_FEES,
    })
    await confirmed(publicClient, hash, `STABLE mint to ${to}`)
    return hash
}
