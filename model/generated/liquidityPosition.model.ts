import {Entity as Entity_, Column as Column_, PrimaryColumn as PrimaryColumn_, ManyToOne as ManyToOne_, Index as Index_, StringColumn as StringColumn_, BigIntColumn as BigIntColumn_} from "@subsquid/typeorm-store"
import {Pair} from "./pair.model"

/**
 * LP token balances: a view over token_balance joined with pair, so the balances are kept once.
 */
@Entity_()
export class LiquidityPosition {
    constructor(props?: Partial<LiquidityPosition>) {
        Object.assign(this, props)
    }

    /**
     * pair-holder (the token_balance id)
     */
    @PrimaryColumn_()
    id!: string

    @Index_()
    @ManyToOne_(() => Pair, {nullable: true})
    pair!: Pair

    @StringColumn_({nullable: false})
    user!: string

    /**
     * LP tokens held (base units)
     */
    @BigIntColumn_({nullable: false})
    liquidityTokenBalance!: bigint
}
