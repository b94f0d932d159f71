import {BigDecimal} from "@subsquid/big-decimal"
import {Entity as Entity_, Column as Column_, PrimaryColumn as PrimaryColumn_, Index as Index_, StringColumn as StringColumn_, IntColumn as IntColumn_, BigIntColumn as BigIntColumn_, BigDecimalColumn as BigDecimalColumn_, OneToMany as OneToMany_} from "@subsquid/typeorm-store"
import {Pair} from "./pair.model"
import {TokenDayData} from "./tokenDayData.model"

@Index_(["holderCount", "id"], {unique: false})
@Entity_()
export class Token {
    constructor(props?: Partial<Token>) {
        Object.assign(this, props)
    }

    /**
     * contract address
     */
    @PrimaryColumn_()
    id!: string

    @StringColumn_({nullable: false})
    type!: string

    @StringColumn_({nullable: true})
    name!: string | undefined | null

    @StringColumn_({nullable: true})
    symbol!: string | undefined | null

    @IntColumn_({nullable: true})
    decimals!: number | undefined | null

    @BigIntColumn_({nullable: true})
    totalSupply!: bigint | undefined | null

    @IntColumn_({nullable: false})
    holderCount!: number

    @IntColumn_({nullable: false})
    transferCount!: number

    @IntColumn_({nullable: false})
    firstBlock!: number

    /**
     * ERC-721 and ERC-1155: token ids ever transferred (a TokenInstance each); 0 for ERC-20
     */
    @IntColumn_({nullable: false})
    instanceCount!: number

    /**
     * AMM figures (0 for tokens in no pair): base units swapped through pairs, in plus out, counted per hop
     */
    @BigIntColumn_({nullable: false})
    tradeVolume!: bigint

    /**
     * quote-token (STABLE) base units of the swaps it took part in, per hop (the swap's volume)
     */
    @BigIntColumn_({nullable: false})
    tradeVolumeQuote!: bigint

    /**
     * swaps (hops) it took part in
     */
    @IntColumn_({nullable: false})
    swapCount!: number

    /**
     * price of one whole token in whole STABLE (scale 18), by the price rule of docs/indexer.md; null when it cannot be priced
     */
    @BigDecimalColumn_({nullable: true})
    derivedQuote!: BigDecimal | undefined | null

    /**
     * base units held in all pairs
     */
    @BigIntColumn_({nullable: false})
    totalLiquidity!: bigint

    /**
     * pairs holding it as token0 and as token1 (Uniswap's names)
     */
    @OneToMany_(() => Pair, e => e.token0)
    pairBase!: Pair[]

    @OneToMany_(() => Pair, e => e.token1)
    pairQuote!: Pair[]

    @OneToMany_(() => TokenDayData, e => e.token)
    tokenDayData!: TokenDayData[]
}
