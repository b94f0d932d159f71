import {BigDecimal} from "@subsquid/big-decimal"
import {Entity as Entity_, Column as Column_, PrimaryColumn as PrimaryColumn_, Index as Index_, ManyToOne as ManyToOne_, DateTimeColumn as DateTimeColumn_, BigIntColumn as BigIntColumn_, IntColumn as IntColumn_, BigDecimalColumn as BigDecimalColumn_} from "@subsquid/typeorm-store"
import {Token} from "./token.model"

/**
 * Per token in a pair and UTC day.
 */
@Index_(["token", "date"], {unique: true})
@Entity_()
export class TokenDayData {
    constructor(props?: Partial<TokenDayData>) {
        Object.assign(this, props)
    }

    /**
     * token-YYYY-MM-DD
     */
    @PrimaryColumn_()
    id!: string

    @ManyToOne_(() => Token, {nullable: true})
    token!: Token

    @DateTimeColumn_({nullable: false})
    date!: Date

    /**
     * base units swapped, in plus out, per hop
     */
    @BigIntColumn_({nullable: false})
    volume!: bigint

    @BigIntColumn_({nullable: false})
    volumeQuote!: bigint

    @IntColumn_({nullable: false})
    swaps!: number

    /**
     * derivedQuote candle
     */
    @BigDecimalColumn_({nullable: true})
    priceOpen!: BigDecimal | undefined | null

    @BigDecimalColumn_({nullable: true})
    priceHigh!: BigDecimal | undefined | null

    @BigDecimalColumn_({nullable: true})
    priceLow!: BigDecimal | undefined | null

    @BigDecimalColumn_({nullable: true})
    priceClose!: BigDecimal | undefined | null

    /**
     * at the end of the day: base units in all pairs, and their value in quote base units (0 when unpriced)
     */
    @BigIntColumn_({nullable: false})
    totalLiquidity!: bigint

    @BigIntColumn_({nullable: false})
    liquidityQuote!: bigint
}
