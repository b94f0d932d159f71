import { Pool } from 'pg'
import { Address, getAddress, Hash } from 'viem'

/** The platform_token table: tokens deployed through POST /api/token/deploy. */

export interface DeployedToken {
    address: Address
    userId: string
    deployer: Address
    name: string
    symbol: string
    description: string
    decimals: number
    /** Base units. */
    totalSupply: bigint
    buyingFee: number
    sellingFee: number
    feeAddress: Address | null
    mintable: boolean
    destination: Address
    transactionHash: Hash
    /** Null when moving the supply failed after the deployment. */
    transferHash: Hash | null
    blockNumber: number
    createdAt: Date
}

export async function insertDeployedToken(db: Pool, t: Omit<DeployedToken, 'createdAt'>): Promise<void> {
    await db.query(
        `INSERT INTO platform_token (address, user_id, deployer, name, symbol, description, decimals, total_supply, buying_fee,
             selling_fee, fee_address, mintable, destination, transaction_hash, transfer_hash, block_number)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
        [
            t.address.toLowerCase(), t.userId, t.deployer.toLowerCase(), t.name, t.symbol, t.description, t.decimals,
            t.totalSupply.toString(), t.buyingFee, t.sellingFee, t.feeAddress?.toLowerCase() ?? null, t.mintable,
            t.destination.toLowerCase(), t.transactionHash, t.transferHash, t.blockNumber,
        ]
    )
}

export async function findDeployedToken(db: Pool, address: Address): Promise<DeployedToken | undefined> {
    const { rows } = await db.query(`SELECT *, total_supply::text AS total_supply FROM platform_token WHERE address = $1`, [address.toLowerCase()])
    return rows[0] ? toToken(rows[0]) : undefined
}

/** Newest first. */
export async function listDeployedTokens(db: Pool, limit: number, offset: number): Promise<{ tokens: DeployedToken[]; total: number }> {
    const [{ rows }, count] = await Promise.all([
        db.query(`SELECT *, total_supply::text AS total_supply FROM platform_token ORDER BY created_at DESC, address LIMIT $1 OFFSET $2`, [limit, offset]),
        db.query('SELECT count(*)::int AS n FROM platform_token'),
    ])
    return { tokens: rows.map(toToken), total: count.rows[0].n }
}

function toToken(r: any): DeployedToken {
    return {
        address: getAddress(r.address),
        userId: r.user_id,
        deployer: getAddress(r.deployer),
        name: r.name,
        symbol: r.symbol,
        description: r.description,
        decimals: r.decimals,
        totalSupply: BigInt(r.total_supply),
        buyingFee: r.buying_fee,
        sellingFee: r.selling_fee,
        feeAddress: r.fee_address ? getAddress(r.fee_address) : null,
        mintable: r.mintable,
        destination: getAddress(r.destination),
        transactionHash: r.transaction_hash,
        transferHash: r.transfer_hash,
        blockNumber: r.block_number,
        createdAt: r.created_at,
    }
}
