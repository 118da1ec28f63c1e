package repo

import (
	"strings"
)

// ruleFindings turns what the plan found into findings: versions and cells
// in error, version-file issues, folder violations, present catalogs that
// break a rule, missing cells, and (as warnings) the rules only the writer
// can fix.
func ruleFindings(m *Matrix) []Finding {
	var out []Finding
	for _, v := range m.Violations {
		out = append(out, Finding{Kind: KindDifference, Key: v.Key, Detail: "rule broken: " + v.Key + ": " + v.Detail})
	}
	for _, vp := range m.Versions {
		if vp.Error != "" {
			p := vp.v.problem
			if len(vp.Cells) > 0 {
				p = vp.Cells[0].Problem
			}
			out = append(out, Finding{Kind: problemKind(p), Version: vp.ID, Key: vp.Catalog, Detail: vp.Error, cause: vp.cause})
		}
		for _, is := range vp.Issues {
			// Printed once, then counted, when every version has it
			// alike (GroupFindings).
			out = append(out, Finding{Kind: problemKind(is.Problem), Version: vp.ID, Detail: is.Detail, cause: is.cause, alike: issueAlike(vp.ID, is)})
		}
		for _, n := range vp.Notes {
			out = append(out, Finding{Kind: KindWarning, Version: vp.ID, Detail: n})
		}
		for _, v := range vp.Violations {
			out = append(out, Finding{Kind: KindDifference, Version: vp.ID, Key: v.Key, Detail: "rule broken: " + v.Key + ": " + v.Detail})
		}
		for _, c := range vp.Cells {
			switch {
			case c.State == Present && c.Violation != "":
				out = append(out, Finding{Kind: KindDifference, Version: c.Version, Format: c.Format, Key: c.Key, Detail: "rule broken: " + c.Violation})
			case c.State == Missing:
				out = append(out, Finding{Kind: KindMissing, Version: c.Version, Format: c.Format, Key: c.Key, Detail: "declared format not written yet",
					alike: alike{group: alikeMissing + c.Format, version: c.Version}})
			case c.State == Error && vp.Error == "":
				out = append(out, Finding{Kind: problemKind(c.Problem), Version: c.Version, Format: c.Format, Key: c.Key, Detail: strings.Join(c.Reasons, "; "), cause: c.cause})
			}
		}
	}
	for _, rule := range m.Rules {
		if rule.Status == "violated" {
			out = append(out, Finding{Kind: KindWarning, Version: rule.Version, Format: rule.Format, Detail: rule.Rule + ": " + rule.Detail,
				alike: alike{group: alikeRule + rule.Rule + "\x00" + rule.Format + "\x00" + rule.Detail, version: rule.Version}})
		}
	}
	for i, w := range m.Warnings {
		out = append(out, Finding{Kind: KindWarning, Key: m.warningKeys[i], Detail: w, alike: m.warningAlike[i]})
	}
	return out
}

func problemKind(p Problem) Kind {
	switch p {
	case ProblemMismatch, ProblemNotEquivalent, ProblemViolation:
		return KindDifference
	case ProblemInvalid:
		return KindInvalid
	case ProblemWarning:
		return KindWarning
	default:
		return KindUnverifiable
	}
}

func kindRank(k Kind) int {
	switch k {
	case KindDifference:
		return 0
	case KindInvalid:
		return 1
	case KindUnverifiable:
		return 2
	}
	return 3
}
