module speedmatrix

go 1.26.0
