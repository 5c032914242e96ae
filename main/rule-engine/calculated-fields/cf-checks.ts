import { argumentsOf, type CfConfigChecker } from '../../platform/calculated-fields.ts';
import { compileMathExpression, MathExpressionError } from '../math-expression.ts';
import { checkAlarmRule } from './cf-alarm-rules.ts';
import { checkMetrics, type AggMetric } from './cf-metrics.ts';
import { checkCfScript, looksLikeScript } from './cf-script.ts';

/** The save-time checks of a field's expression, script, metrics and alarm rules (400 with the reason). */
export const checkCalculatedFieldConfig: CfConfigChecker = (type, config) => {
  const argNames = Object.keys(argumentsOf(type, config));
  const expr = typeof config.expression === 'string' ? config.expression : '';
  const formula = (): string | null => {
    try {
      compileMathExpression(expr, argNames);
      return null;
    } catch (err) {
      if (err instanceof MathExpressionError) return `Invalid expression: ${err.message}`;
      throw err;
    }
  };
  switch (type) {
    case 'SIMPLE':
      return formula();
    case 'SCRIPT':
      return checkCfScript(expr, argNames);
    case 'PROPAGATION':
      if (!config.applyExpressionToResolvedArguments) return null;
      return looksLikeScript(expr) ? checkCfScript(expr, argNames) : formula();
    case 'RELATED_ENTITIES_AGGREGATION':
    case 'ENTITY_AGGREGATION':
      return checkMetrics(config.metrics as Record<string, AggMetric>, argNames);
    case 'ALARM': {
      for (const [severity, rule] of Object.entries(config.createRules as Record<string, unknown>)) {
        if (!['CRITICAL', 'MAJOR', 'MINOR', 'WARNING', 'INDETERMINATE'].includes(severity))
          return `Unknown alarm severity '${severity}'.`;
        const problem = checkAlarmRule(rule, `createRules.${severity}`) ?? tbelProblem(rule, argNames);
        if (problem) return problem;
      }
      if (config.clearRule != null)
        return checkAlarmRule(config.clearRule, 'clearRule') ?? tbelProblem(config.clearRule, argNames);
      return null;
    }
    default:
      return null;
  }
};

function tbelProblem(rule: unknown, argNames: string[]): string | null {
  const e = (rule as { condition?: { expression?: { type?: string; expression?: string } } }).condition
    ?.expression;
  return e?.type === 'TBEL' ? checkCfScript(String(e.expression ?? ''), argNames) : null;
}
