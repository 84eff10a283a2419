/**
 * What the server's work budget (`workBudgetMs`, server README "Limits") does to a paged read
 * whose cost depends on stored data, said once for every route it bounds.
 */
export const WORK_BUDGET_NOTE =
  " With API keys a request also stops once its work took the server's `workBudgetMs` (default 200 ms of wall-clock time; the owner's requests are not bounded) and answers what it has with its `next`: following `next` gives the same answer as one unbounded request.";
