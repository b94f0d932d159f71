// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

interface IPairView {
    function factory() external view returns (address);
    function token0() external view returns (address);
    function token1() external view returns (address);
}

interface IFactoryView {
    function getPair(address tokenA, address tokenB) external view returns (address);
}

/// @title The token the wallet platform deploys (POST /api/token/deploy)
/// @notice An ERC-20 whose decimals (0-18) are fixed at deployment, with optional trading fees in
/// basis points paid to `feeAddress`: `buyingFee` on transfers out of an AMM pair, `sellingFee` on
/// transfers into one (a transfer from one pair to another, as in a multi-hop swap, pays both).
/// Wallet-to-wallet transfers pay nothing. The whole supply is minted to the deployer; when
/// `mintable`, the owner may mint more.
contract PlatformToken is ERC20, Ownable {
    uint16 public constant MAX_FEE = 2500; // 25%

    string public description;
    uint16 public immutable buyingFee;
    uint16 public immutable sellingFee;
    address public immutable feeAddress;
    bool public immutable mintable;
    /// @notice The factory whose pairs count as AMM pairs for the fees.
    address public immutable ammFactory;
    uint8 private immutable _decimals;

    mapping(address => bool) private _knownPairs;

    constructor(
        string memory name_,
        string memory symbol_,
        string memory description_,
        uint8 decimals_,
        uint256 totalSupply_,
        uint16 buyingFee_,
        uint16 sellingFee_,
        address feeAddress_,
        bool mintable_,
        address ammFactory_
    ) ERC20(name_, symbol_) Ownable(msg.sender) {
        require(decimals_ <= 18, "DECIMALS_OUT_OF_RANGE");
        require(buyingFee_ <= MAX_FEE && sellingFee_ <= MAX_FEE, "FEE_TOO_HIGH");
        require(feeAddress_ != address(0) || (buyingFee_ == 0 && sellingFee_ == 0), "FEE_ADDRESS_REQUIRED");
        description = description_;
        _decimals = decimals_;
        buyingFee = buyingFee_;
        sellingFee = sellingFee_;
        feeAddress = feeAddress_;
        mintable = mintable_;
        ammFactory = ammFactory_;
        _mint(msg.sender, totalSupply_);
    }

    function decimals() public view override returns (uint8) {
        return _decimals;
    }

    function mint(address to, uint256 amount) external onlyOwner {
        require(mintable, "NOT_MINTABLE");
        _mint(to, amount);
    }

    /// @dev Every balance change passes here; mints and burns are exempt from fees.
    function _update(address from, address to, uint256 value) internal override {
        if (from != address(0) && to != address(0) && value > 0) {
            uint256 fee;
            if (buyingFee > 0 && _isPair(from)) fee += (value * buyingFee) / 10_000;
            if (sellingFee > 0 && _isPair(to)) fee += (value * sellingFee) / 10_000;
            if (fee > 0) {
                super._update(from, feeAddress, fee);
                value -= fee;
            }
        }
        super._update(from, to, value);
    }

    /// @dev A pair of our factory: it names the factory, and the factory lists it for its tokens.
    /// Positive answers are cached, as a pair never stops being one. Negative ones are not: a pair's
    /// address is known (and may hold tokens) before the pair is created.
    function _isPair(address account) private returns (bool) {
        if (_knownPairs[account]) return true;
        if (ammFactory == address(0) || account.code.length == 0) return false;
        (bool ok, address factory) = _callForAddress(account, abi.encodeCall(IPairView.factory, ()));
        if (!ok || factory != ammFactory) return false;
        address token0;
        address token1;
        (ok, token0) = _callForAddress(account, abi.encodeCall(IPairView.token0, ()));
        if (!ok) return false;
        (ok, token1) = _callForAddress(account, abi.encodeCall(IPairView.token1, ()));
        if (!ok) return false;
        address listed;
        (ok, listed) = _callForAddress(ammFactory, abi.encodeCall(IFactoryView.getPair, (token0, token1)));
        if (!ok || listed != account) return false;
        _knownPairs[account] = true;
        return true;
    }

    /// @dev A static call that reports failure instead of reverting, whatever the callee does:
    /// try/catch would still revert on a reply that does not decode (say, from a contract whose
    /// fallback accepts any call), and that would block every transfer to such a contract.
    function _callForAddress(address target, bytes memory data) private view returns (bool, address) {
        (bool success, bytes memory reply) = target.staticcall(data);
        if (!success || reply.length < 32) return (false, address(0));
        uint256 word = abi.decode(reply, (uint256));
        if (word > type(uint160).max) return (false, address(0));
        return (true, address(uint160(word)));
    }
}
