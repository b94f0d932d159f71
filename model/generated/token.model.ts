import {Entity as Entity_, Column as Column_, PrimaryColumn as PrimaryColumn_, Index as Index_, StringColumn as StringColumn_, IntColumn as IntColumn_, BigIntColumn as BigIntColumn_} from "@subsquid/typeorm-store"

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
}
