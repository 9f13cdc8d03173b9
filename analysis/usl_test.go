package analysis

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestFitUSLRecoversParameters(t *testing.T) {
	ns := []float64{1, 2, 4, 8, 16, 32, 64, 128}
	tests := []struct {
		name                 string
		lambda, sigma, kappa float64
		noise                float64 // relative, uniform ±
		tol                  float64 // relative tolerance on σ, κ, λ
	}{
		{"contention and coherency", 300, 0.05, 2e-4, 0, 1e-3},
		{"coherency dominated", 500, 0.01, 1e-3, 0, 1e-3},
		{"strong contention", 120, 0.3, 5e-5, 0, 1e-3},
		{"noisy 1%", 330, 0.04, 1e-4, 0.01, 0.25},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			truth := USLFit{Lambda: tt.lambda, Sigma: tt.sigma, Kappa: tt.kappa}
			var pts []Point
			for _, n := range ns {
				x := truth.Predict(n) * (1 + tt.noise*(2*rng.Float64()-1))
				pts = append(pts, Point{n, x})
			}
			f, err := FitUSL(pts)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				name      string
				got, want float64
			}{{"λ", f.Lambda, tt.lambda}, {"σ", f.Sigma, tt.sigma}, {"κ", f.Kappa, tt.kappa}} {
				if math.Abs(c.got-c.want) > tt.tol*c.want {
					t.Errorf("%s = %.6g, want %.6g", c.name, c.got, c.want)
				}
			}
			wantPeak := math.Sqrt((1 - tt.sigma) / tt.kappa)
			if math.Abs(f.PeakN-wantPeak) > 2*tt.tol*wantPeak {
				t.Errorf("N* = %.4g, want %.4g", f.PeakN, wantPeak)
			}
			if f.Poor || f.R2 < 0.99 {
				t.Errorf("poor fit: R² %.4f, %d points", f.R2, f.Points)
			}
		})
	}
}

func TestFitUSLFlagsPoorFits(t *testing.T) {
	tests := []struct {
		name  string
		pts   []Point
		poor  bool
		lowR2 bool // poor for its R², not for its points
	}{
		{"three points", []Point{{1, 100}, {2, 180}, {4, 300}}, true, false},
		{"zigzag", []Point{{1, 100}, {2, 400}, {4, 120}, {8, 500}, {16, 110}, {32, 480}}, true, true},
		{"linear", []Point{{1, 100}, {2, 200}, {4, 400}, {8, 800}}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := FitUSL(tt.pts)
			if err != nil {
				t.Fatal(err)
			}
			if f.Poor != tt.poor || tt.poor && (f.R2 < PoorR2) != tt.lowR2 || tt.poor && (f.Points < MinUSLPoints) == tt.lowR2 {
				t.Errorf("poor=%v R²=%.3f points=%d; want poor=%v, for a low R² %v", f.Poor, f.R2, f.Points, tt.poor, tt.lowR2)
			}
		})
	}
	if _, err := FitUSL([]Point{{1, 100}, {2, 0}, {4, 300}}); err == nil {
		t.Error("fit of two usable points succeeded")
	}
	lin, _ := FitUSL([]Point{{1, 100}, {2, 200}, {4, 400}, {8, 800}})
	if !math.IsInf(lin.PeakN, 1) {
		t.Errorf("linear scaling peak N = %v, want +Inf", lin.PeakN)
	}
}
