/** Exact t-test power and the detectable noncentrality, against scipy.stats.nct (scipy 1.17). */
import { describe, it } from 'node:test';
import { detectableNcp, tTestPower } from '../../src/stats/noncentral.ts';
import { assertClose } from './close.ts';

describe('t-test power from the noncentral t', () => {
  it('matches scipy at 1, 2, 28 and 4.3 df two-sided and 9 and 599 df one-sided', () => {
    // nct.sf(t.ppf(1 - a/s, df), df, 3) (+ nct.cdf(-t.ppf(..), df, 3) two-sided)
    assertClose(tTestPower(3, 1, 0.05, 2), 0.18613206160658757, 1e-6);
    assertClose(tTestPower(3, 2, 0.05, 2), 0.38740012852597105, 1e-6);
    assertClose(tTestPower(3, 28, 0.05, 2), 0.8252955126016343, 1e-7);
    assertClose(tTestPower(3, 4.3, 0.05, 2), 0.6377713465059771, 1e-6);
    assertClose(tTestPower(3, 9, 0.05, 1), 0.8684544363944795, 1e-7);
    assertClose(tTestPower(3, 599, 0.05, 1), 0.9117732963101388, 1e-7);
  });
});

describe('the noncentrality a t test needs for 80 % power', () => {
  it('is 16.33 standard errors at 1 df, 16 % more than t(0.975, 1) + t(0.8, 1) = 14.08', () => {
    // brentq over nct power: 16.334008869920797
    assertClose(detectableNcp(1, 0.05, 0.8, 2), 16.334008869920797, 1e-5);
  });

  it('matches scipy at 2 and 28 df, at 23 df and alpha 0.05/24, and one-sided at 9 df', () => {
    assertClose(detectableNcp(2, 0.05, 0.8, 2), 5.653489266197127, 1e-5);
    assertClose(detectableNcp(28, 0.05, 0.8, 2), 2.902380692703361, 1e-6);
    assertClose(detectableNcp(23, 0.05 / 24, 0.8, 2), 4.374144256267123, 1e-6);
    assertClose(detectableNcp(9, 0.05, 0.8, 1), 2.696909012705551, 1e-6);
  });
});
