import {BigDecimal} from "@subsquid/big-decimal"
import {Entity as Entity_, Column as Column_, PrimaryColumn as PrimaryColumn_, ManyToOne as ManyToOne_, Index as Index_, BigIntColumn as BigIntColumn_, BigDecimalColumn as BigDecimalColumn_, IntColumn as IntColumn_, StringColumn as StringColumn_, OneToMany as OneToMany_} from "@subsquid/typeorm-store"
import {Token} from "./token.model"
import {Swap} from "./swap.model"
import {Mint} from "./mint.model"
import {Burn} from "./burn.model"
import {PairHourData} from "./pairHourData.model"
import {PairDayData} from "./pairDayData.model"
import {LiquidityPosition} from "./liquidityPosition.model"

@Entity_()
export class Pair {
    constructor(props?: Partial<Pair>) {
        Object.assign(this, props)
    }

    /**
     * pair contract address
     */
    @PrimaryColumn_()
    id!: string

    @Index_()
    @ManyToOne_(() => Token, {nullable: true})
    token0!: Token

    @Index_()
    @ManyToOne_(() => Token, {nullable: true})
    token1!: Token

    /**
     * base units
     */
    @BigIntColumn_({nullable: false})
    reserve0!: bigint

    @BigIntColumn_({nullable: false})
    reserve1!: bigint

    /**
     * whole tokens
     */
    @BigDecimalColumn_({nullable: false})
    reserve0Decimal!: BigDecimal

    @BigDecimalColumn_({nullable: false})
    reserve1Decimal!: BigDecimal

    /**
     * token0 per token1 in whole units (Uniswap's token0Price); null while reserve1 is 0
     */
    @BigDecimalColumn_({nullable: true})
    token0Price!: BigDecimal | undefined | null

    /**
     * token1 per token0 in whole units; null while reserve0 is 0
     */
    @BigDecimalColumn_({nullable: true})
    token1Price!: BigDecimal | undefined | null

    /**
     * both reserves in quote-token (STABLE) base units by the volume rule (twice the valued side)
     */
    @BigIntColumn_({nullable: false})
    reserveQuote!: bigint

    /**
     * base units of token0 swapped, in plus out, all time
     */
    @BigIntColumn_({nullable: false})
    volumeToken0!: bigint

    @BigIntColumn_({nullable: false})
    volumeToken1!: bigint

    /**
     * all-time volume in quote-token (STABLE) base units, per hop
     */
    @BigIntColumn_({nullable: false})
    volumeTotal!: bigint

    @IntColumn_({nullable: false})
    swapsTotal!: number

    /**
     * LP tokens in existence (base units)
     */
    @BigIntColumn_({nullable: false})
    totalSupply!: bigint

    @IntColumn_({nullable: false})
    createdBlock!: number

    @StringColumn_({nullable: false})
    createdTransaction!: string

    @OneToMany_(() => Swap, e => e.pair)
    swaps!: Swap[]

    @OneToMany_(() => Mint, e => e.pair)
    mints!: Mint[]

    @OneToMany_(() => Burn, e => e.pair)
    burns!: Burn[]

    @OneToMany_(() => PairHourData, e => e.pair)
    pairHourData!: PairHourData[]

    @OneToMany_(() => PairDayData, e => e.pair)
    pairDayData!: PairDayData[]

    @OneToMany_(() => LiquidityPosition, e => e.pair)
    liquidityPositions!: LiquidityPosition[]
}
