import {Entity as Entity_, Column as Column_, PrimaryColumn as PrimaryColumn_, Index as Index_, StringColumn as StringColumn_, BigIntColumn as BigIntColumn_} from "@subsquid/typeorm-store"

@Index_(["token", "value", "holder"], {unique: false})
@Index_(["holder", "token"], {unique: false})
@Entity_()
export class TokenBalance {
    constructor(props?: Partial<TokenBalance>) {
        Object.assign(this, props)
    }

    /**
     * token-holder
     */
    @PrimaryColumn_()
    id!: string

    @StringColumn_({nullable: false})
    token!: string

    @StringColumn_({nullable: false})
    holder!: string

    /**
     * base units (ERC-20) or number of tokens held (ERC-721)
     */
    @BigIntColumn_({nullable: false})
    value!: bigint
}
