// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @title STABLE, the chain's quote token (6 decimals, like the major dollar stablecoins)
/// @notice The owner mints; on the devnet that is the faucet for test accounts.
contract Stable is ERC20, Ownable {
    constructor(address initialOwner) ERC20("Stable Token", "STABLE") Ownable(initialOwner) {}

    function decimals() public pure override returns (uint8) {
        return 6;
    }

    function mint(address to, uint256 amount) external onlyOwner {
        _mint(to, amount);
    }
}
