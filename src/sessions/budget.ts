// R-BUDGET-1: a session's `options.budget`, enforced whatever the agent. The turn's wall time
// is a timer; tokens and cost are what the agent reports (`usage` events during the turn,
// the outcome's usage at its end) added up over the session. An overrun is one
// budget_exceeded error naming the budget, its limit and the figure reached.
import type { Budget, BudgetOverrun, Usage } from "../../generated/ts/types.js";
import { errors, type A4aaError } from "../errors.js";

/** A report's tokens: its total, else input + output; undefined when it gives neither. */
function tokensOf(u: Usage): number | undefined {
  if (u.totalTokens !== undefined) return u.totalTokens;
  if (u.inputTokens === undefined && u.outputTokens === undefined) return undefined;
  return (u.inputTokens ?? 0) + (u.outputTokens ?? 0);
}

function overrun(o: BudgetOverrun, what: string): A4aaError {
  return errors.budgetExceeded("prompt", `${what}: ${o.name} is ${o.limit}, reached ${Math.round(o.reached * 1e6) / 1e6}`, {
    uncertainEffect: o.name !== "maxTurnMs" || o.reached > 0,
    extra: { budget: o },
  });
}

export class SessionBudget {
  private tokens = 0;
  private cost = 0;
  /** The running turn's figures so far (the largest report: agents send running totals). */
  private turnTokens = 0;
  private turnCost = 0;

  constructor(readonly limits: Budget) {}

  get maxTurnMs(): number | undefined {
    return this.limits.maxTurnMs;
  }

  /** Before a prompt: a session whose token or cost budget is spent refuses it. */
  refusal(): A4aaError | undefined {
    const { maxTokens, maxCostUsd } = this.limits;
    const spent = (o: BudgetOverrun) =>
      errors.budgetExceeded("prompt", `the session's budget is spent (${o.name} is ${o.limit}, reached ${Math.round(o.reached * 1e6) / 1e6}); open a new session`, {
        uncertainEffect: false,
        extra: { budget: o },
      });
    if (maxTokens !== undefined && this.tokens >= maxTokens) return spent({ name: "maxTokens", limit: maxTokens, reached: this.tokens });
    if (maxCostUsd !== undefined && this.cost >= maxCostUsd) return spent({ name: "maxCostUsd", limit: maxCostUsd, reached: this.cost });
    return undefined;
  }

  /** A usage report during the turn: the overrun it makes, if any. */
  observe(u: Usage): A4aaError | undefined {
    const t = tokensOf(u);
    if (t !== undefined) this.turnTokens = Math.max(this.turnTokens, t);
    if (u.costUsd !== undefined) this.turnCost = Math.max(this.turnCost, u.costUsd);
    return this.check("the turn was cancelled");
  }

  /** The turn ran longer than maxTurnMs. */
  turnTooLong(elapsedMs: number): A4aaError {
    return overrun({ name: "maxTurnMs", limit: this.limits.maxTurnMs ?? 0, reached: elapsedMs }, "the turn was cancelled");
  }

  /** The turn ended: its own usage (the outcome's when it has one) joins the session's. */
  endTurn(usage: Usage | undefined): void {
    const t = usage ? tokensOf(usage) : undefined;
    this.tokens += Math.max(t ?? 0, this.turnTokens);
    this.cost += Math.max(usage?.costUsd ?? 0, this.turnCost);
    this.turnTokens = 0;
    this.turnCost = 0;
  }

  private check(what: string): A4aaError | undefined {
    const { maxTokens, maxCostUsd } = this.limits;
    const tokens = this.tokens + this.turnTokens;
    const cost = this.cost + this.turnCost;
    if (maxTokens !== undefined && tokens > maxTokens) return overrun({ name: "maxTokens", limit: maxTokens, reached: tokens }, what);
    if (maxCostUsd !== undefined && cost > maxCostUsd) return overrun({ name: "maxCostUsd", limit: maxCostUsd, reached: cost }, what);
    return undefined;
  }
}
