// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

interface IERC20Transfer {
    function transferFrom(address from, address to, uint256 value) external returns (bool);
}

/// @dev Test and benchmark contract: one transaction paying many recipients (as airdrop tools do),
/// so a synthetic chain gets many Transfer logs from few transactions.
contract Disperse {
    function disperseToken(address token, address[] calldata recipients, uint256[] calldata amounts) external {
        require(recipients.length == amounts.length, "Disperse: LENGTH_MISMATCH");
        for (uint256 i; i < recipients.length; i++) {
            require(IERC20Transfer(token).transferFrom(msg.sender, recipients[i], amounts[i]), "Disperse: TRANSFER_FAILED");
        }
    }
}
